package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.annotation.LockMode;

/**
 * What one published wait says, in its record node under {@link LockPaths#WAITS}:
 * who waits (the {@link Party} and its thread id), for which lock, with which node
 * of which queue, and which lock nodes it holds. A record is immutable: a next key,
 * a re-queue or a new session make a new one.
 * <p>
 * The data is UTF-8 text, one field a line, {@code name<TAB>value}, the first line
 * {@value #FORMAT} and the format version; a {@code holds} line carries mode, name,
 * key and node path, tab-separated. Backslash, tab and line break are escaped as
 * {@code \\}, {@code \t} and {@code \n}, and an absent value is {@code \0}. A reader
 * ignores fields it does not know and refuses another version. At most
 * {@value #MAX_HOLDS} holds are kept, then {@code truncated}: a hold left out can
 * only hide an edge, never make one up.
 *
 * @param party who waits
 * @param threadId the waiting thread's id, 0 for an asynchronous acquisition
 * @param waitsFor the lock, key and mode it waits for
 * @param permits the permits of a SEMAPHORE, 1 for the other modes
 * @param queue the lock path whose queue it waits in
 * @param node the name of its node in that queue; with local hand-off, the tenure's
 * @param local whether it waits behind this process's tenure (local hand-off)
 * @param since when the wait began, for display
 * @param holds the lock nodes it holds, at most {@value #MAX_HOLDS}
 * @param truncated whether holds were left out
 */
record WaitRecord(Party party, long threadId, LockRef waitsFor, int permits, String queue, String node, boolean local,
		Instant since, List<Held> holds, boolean truncated) {

	/** The first field of every record. */
	static final String FORMAT = "zk-lock-wait";

	/** The version this engine writes and reads. */
	static final int VERSION = 1;

	/** The most holds a record lists. */
	static final int MAX_HOLDS = 256;

	private static final String ABSENT = "\\0";

	WaitRecord {
		Objects.requireNonNull(party, "party must not be null");
		Objects.requireNonNull(waitsFor, "waitsFor must not be null");
		Objects.requireNonNull(queue, "queue must not be null");
		Objects.requireNonNull(node, "node must not be null");
		Objects.requireNonNull(since, "since must not be null");
		truncated = truncated || holds.size() > MAX_HOLDS;
		holds = List.copyOf(holds.subList(0, Math.min(holds.size(), MAX_HOLDS)));
	}

	/**
	 * One lock node a waiter holds.
	 *
	 * @param lock the lock, key and mode of the node
	 * @param path the node's full path
	 */
	record Held(LockRef lock, String path) {

	}

	/**
	 * The full path of the node it waits with.
	 */
	String nodePath() {
		return this.queue + "/" + this.node;
	}

	/**
	 * The record's data.
	 * @return UTF-8 text as the class comment describes
	 */
	byte[] encode() {
		StringBuilder text = new StringBuilder(256);
		line(text, FORMAT, Integer.toString(VERSION));
		line(text, "app", this.party.app());
		line(text, "host", this.party.host());
		line(text, "pid", Long.toString(this.party.pid()));
		line(text, "session", "0x" + Long.toHexString(this.party.session()));
		line(text, "thread", this.party.thread());
		line(text, "threadId", Long.toString(this.threadId));
		line(text, "lock", this.waitsFor.name());
		line(text, "key", this.waitsFor.key());
		line(text, "mode", this.waitsFor.mode().name());
		line(text, "permits", Integer.toString(this.permits));
		line(text, "queue", this.queue);
		line(text, "node", this.node);
		line(text, "local", Boolean.toString(this.local));
		line(text, "since", this.since.toString());
		for (Held held : this.holds) {
			line(text, "holds", held.lock().mode().name(), held.lock().name(), held.lock().key(), held.path());
		}
		if (this.truncated) {
			line(text, "truncated", "true");
		}
		return text.toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Read a record's data.
	 * @param data the data of a record node
	 * @return the record
	 * @throws IllegalArgumentException when the data is no record of this version,
	 * or lacks a field
	 */
	static WaitRecord decode(byte[] data) {
		String[] lines = new String(data, StandardCharsets.UTF_8).split("\n");
		List<@Nullable String> header = fields(lines[0]);
		if (header.size() != 2 || !FORMAT.equals(header.get(0)) || !Integer.toString(VERSION).equals(header.get(1))) {
			throw new IllegalArgumentException("Not a wait record of version " + VERSION + ": " + lines[0]);
		}
		Map<String, @Nullable String> values = new HashMap<>();
		List<Held> holds = new ArrayList<>();
		for (int i = 1; i < lines.length; i++) {
			List<@Nullable String> fields = fields(lines[i]);
			String name = fields.get(0);
			if (name == null) {
				continue;
			}
			if (name.equals("holds") && fields.size() == 5) {
				holds.add(new Held(new LockRef(required(fields.get(2), "holds name"), fields.get(3),
						LockMode.valueOf(required(fields.get(1), "holds mode"))), required(fields.get(4), "holds path")));
			}
			else if (fields.size() == 2) {
				values.put(name, fields.get(1));
			}
		}
		try {
			Party party = new Party(values.get("app"), value(values, "host"), Long.parseLong(value(values, "pid")),
					Long.parseUnsignedLong(value(values, "session").substring(2), 16), value(values, "thread"));
			LockRef waitsFor = new LockRef(value(values, "lock"), values.get("key"),
					LockMode.valueOf(value(values, "mode")));
			return new WaitRecord(party, Long.parseLong(value(values, "threadId")), waitsFor,
					Integer.parseInt(value(values, "permits")), value(values, "queue"), value(values, "node"),
					Boolean.parseBoolean(value(values, "local")), Instant.parse(value(values, "since")), holds,
					"true".equals(values.get("truncated")));
		}
		catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException ex) {
			throw new IllegalArgumentException("Unreadable wait record: " + ex.getMessage(), ex);
		}
	}

	private static String value(Map<String, @Nullable String> values, String name) {
		return required(values.get(name), name);
	}

	private static String required(@Nullable String value, String name) {
		if (value == null) {
			throw new IllegalArgumentException("Wait record without " + name);
		}
		return value;
	}

	private static void line(StringBuilder text, String name, @Nullable String... values) {
		text.append(name);
		for (String value : values) {
			text.append('\t').append((value != null) ? escape(value) : ABSENT);
		}
		text.append('\n');
	}

	private static String escape(String value) {
		StringBuilder escaped = new StringBuilder(value.length());
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '\\' -> escaped.append("\\\\");
				case '\t' -> escaped.append("\\t");
				case '\n' -> escaped.append("\\n");
				default -> escaped.append(c);
			}
		}
		return escaped.toString();
	}

	// A line's tab-separated fields, unescaped; the absent marker reads as null
	private static List<@Nullable String> fields(String line) {
		List<@Nullable String> fields = new ArrayList<>();
		for (String field : line.split("\t", -1)) {
			fields.add(field.equals(ABSENT) ? null : unescape(field));
		}
		return fields;
	}

	private static String unescape(String field) {
		StringBuilder text = new StringBuilder(field.length());
		for (int i = 0; i < field.length(); i++) {
			char c = field.charAt(i);
			if (c != '\\') {
				text.append(c);
				continue;
			}
			char next = (i + 1 < field.length()) ? field.charAt(++i) : ' ';
			switch (next) {
				case '\\' -> text.append('\\');
				case 't' -> text.append('\t');
				case 'n' -> text.append('\n');
				default -> throw new IllegalArgumentException("Bad escape in wait record field: " + field);
			}
		}
		return text.toString();
	}

}
