package dev.zklock.faults;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.zklock.testsupport.FreePorts;

/**
 * The resource that the workers' locks protect, served on 127.0.0.1 to the worker
 * processes: one counter per key that a critical section reads ({@code E}), writes
 * ({@code W}) and leaves ({@code X}), and that a reader under a READ lock reads
 * without a section ({@code P}), one request and answer per line, one connection
 * per worker thread. It sees every critical section in one order, on one clock, and
 * counts what went wrong:
 * <ul>
 * <li>overlaps: two sections open at the same time whose holders both wrote after
 * {@code assertHeld()} had passed;</li>
 * <li>stale accesses: a read or a write carrying a fencing token below the highest
 * token the key has seen. A fenced key rejects them, as a store that checks the
 * token on every access does (for a write alone: {@code UPDATE ... WHERE fence <= ?});
 * checking the read too keeps a read-modify-write from losing an update when two
 * holders were paused. An equal token is not stale: the holders of one tenure of
 * local hand-off share their token, and each of them must be able to write. An
 * unfenced key accepts stale accesses and counts the stale writes;</li>
 * <li>lost updates: an accepted write whose value is not one more than the counter,
 * because another write came between the section's read and its write;</li>
 * <li>token regressions: a section entered with a token not above the previous
 * section's; equal is allowed only between two sections of holders that lock with
 * local hand-off ({@code E key token T}), which share the token of their tenure.
 * Equal tokens mean one node, so one process.</li>
 * </ul>
 * Every entry and write is kept with its token ({@link AccessLog}), for questions
 * about the holders of one token after a fault.
 * A connection that closes (its process was killed) leaves its open sections at that
 * moment.
 */
final class ProtectedResource implements AutoCloseable {

	private final ServerSocket server;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

	private final Set<String> unfenced = ConcurrentHashMap.newKeySet();

	private final AtomicLong sectionIds = new AtomicLong();

	private volatile boolean closed;

	ProtectedResource() {
		try {
			this.server = new ServerSocket();
			this.server.bind(new InetSocketAddress(FreePorts.loopback(), 0));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not listen on 127.0.0.1 for the protected resource", ex);
		}
		Thread acceptor = new Thread(this::acceptLoop, "protected-resource");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * The address workers connect to.
	 * @return {@code 127.0.0.1:port}
	 */
	String address() {
		return "127.0.0.1:" + this.server.getLocalPort();
	}

	/**
	 * Accept stale writes on a key instead of rejecting them: the unfenced control.
	 * @param key the key
	 */
	void unfenced(String key) {
		this.unfenced.add(key);
	}

	/**
	 * What the resource has seen on a key so far.
	 * @param key the key
	 * @return the figures, all zero for a key never used
	 */
	ResourceStats stats(String key) {
		Counter counter = this.counters.get(key);
		return (counter != null) ? counter.stats(key) : ResourceStats.empty(key);
	}

	/**
	 * When the resource applied writes on a key, in {@link System#nanoTime()}.
	 * @param key the key
	 * @return the times, in order
	 */
	long[] writeTimes(String key) {
		Counter counter = this.counters.get(key);
		return (counter != null) ? counter.writeTimes() : new long[0];
	}

	/**
	 * What the holders of one token did on a key from a time on.
	 * @param key the key
	 * @param token the token
	 * @param sinceNanos the earliest {@link System#nanoTime()} to count
	 * @return the counts
	 */
	AccessLog.TokenUse tokenUse(String key, long token, long sinceNanos) {
		return counter(key).uses(token, sinceNanos);
	}

	/**
	 * The sections entered on a key from one time to another, both excluded, and
	 * their tokens.
	 * @param key the key
	 * @param fromNanos the start, {@link System#nanoTime()}
	 * @param toNanos the end
	 * @return the counts
	 */
	AccessLog.TokenWindow window(String key, long fromNanos, long toNanos) {
		return counter(key).window(fromNanos, toNanos);
	}

	/**
	 * The highest token the resource accepted on a key before a time.
	 * @param key the key
	 * @param beforeNanos the time, {@link System#nanoTime()}
	 * @return the token, 0 when none
	 */
	long highestTokenBefore(String key, long beforeNanos) {
		return counter(key).highestBefore(beforeNanos);
	}

	/**
	 * When sections on a key were entered, in {@link System#nanoTime()}.
	 * @param key the key
	 * @return the entry times, in order
	 */
	long[] entryTimes(String key) {
		Counter counter = this.counters.get(key);
		return (counter != null) ? counter.entryTimes() : new long[0];
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		for (Socket socket : this.connections) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
	}

	private void acceptLoop() {
		while (!this.closed) {
			try {
				Socket socket = this.server.accept();
				socket.setTcpNoDelay(true);
				this.connections.add(socket);
				Thread thread = new Thread(() -> serve(socket), "protected-resource " + socket.getPort());
				thread.setDaemon(true);
				thread.start();
			}
			catch (IOException ex) {
				if (!this.closed) {
					throw new UncheckedIOException("The protected resource stopped accepting", ex);
				}
			}
		}
	}

	private void serve(Socket socket) {
		Map<String, Section> open = new HashMap<>();
		try (BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
				BufferedWriter out = new BufferedWriter(
						new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = in.readLine()) != null) {
				out.write(handle(line, open));
				out.newLine();
				out.flush();
			}
		}
		catch (IOException ex) {
			// the worker went away
		}
		finally {
			this.connections.remove(socket);
			open.forEach((key, section) -> counter(key).leave(section));
		}
	}

	private String handle(String line, Map<String, Section> open) {
		String[] parts = line.split(" ");
		String key = parts[1];
		Counter counter = counter(key);
		switch (parts[0]) {
			case "E" -> {
				if (open.containsKey(key)) {
					throw new IllegalStateException("Entered key " + key + " twice on one connection: " + line);
				}
				Section section = new Section(this.sectionIds.incrementAndGet(), Long.parseLong(parts[2]),
						parts.length > 3 && parts[3].equals("T"));
				open.put(key, section);
				long value = counter.enter(section, !this.unfenced.contains(key));
				return (value >= 0) ? "V " + value : "R";
			}
			case "W" -> {
				Section section = open.get(key);
				if (section == null) {
					throw new IllegalStateException("Write outside a section on key " + key + ": " + line);
				}
				boolean accepted = counter.write(section, Long.parseLong(parts[3]), Boolean.parseBoolean(parts[4]),
						!this.unfenced.contains(key));
				return accepted ? "A" : "R";
			}
			case "P" -> {
				return "V " + counter.peek();
			}
			case "X" -> {
				Section section = open.remove(key);
				if (section != null) {
					counter.leave(section);
				}
				return "K";
			}
			default -> throw new IllegalStateException("Unknown request: " + line);
		}
	}

	private Counter counter(String key) {
		return this.counters.computeIfAbsent(key, (k) -> new Counter());
	}

	/**
	 * One critical section as the resource saw it.
	 */
	private static final class Section {

		private final long id;

		private final long token;

		// a holder that locks with local hand-off: it may share its tenure's token
		private final boolean tenure;

		private boolean rejected;

		private boolean checkedWrite;

		private boolean wrote;

		private final List<Section> concurrent = new ArrayList<>();

		Section(long id, long token, boolean tenure) {
			this.id = id;
			this.token = token;
			this.tenure = tenure;
		}

	}

	/**
	 * The counter of one key and its bookkeeping; every method runs under the
	 * counter's lock, so the resource's order is the order of these calls.
	 */
	private static final class Counter {

		private long value;

		private long highestToken;

		private long staleReadsRejected;

		private long lastEnteredToken;

		private boolean lastEnteredTenure;

		private final AccessLog log = new AccessLog();

		private final List<Section> open = new ArrayList<>();

		private final List<Section> finished = new ArrayList<>();

		private long[] entryTimes = new long[1024];

		private int entries;

		private long[] writeTimes = new long[1024];

		private long writesAccepted;

		private long writesWithoutCheck;

		private long staleRejected;

		private long staleAccepted;

		private long lostUpdates;

		private long tokenRegressions;

		private long sectionsWithoutWrite;

		// the value, or -1 when a fenced key rejects the section's stale token
		synchronized long enter(Section section, boolean fenced) {
			if (this.entries == this.entryTimes.length) {
				this.entryTimes = Arrays.copyOf(this.entryTimes, this.entries * 2);
			}
			long now = System.nanoTime();
			this.entryTimes[this.entries++] = now;
			if (section.token != 0) {
				boolean sameTenure = section.token == this.lastEnteredToken && section.tenure && this.lastEnteredTenure;
				if (section.token <= this.lastEnteredToken && !sameTenure) {
					this.tokenRegressions++;
				}
				if (section.token >= this.lastEnteredToken) {
					this.lastEnteredTenure = section.tenure;
				}
				this.lastEnteredToken = Math.max(this.lastEnteredToken, section.token);
			}
			for (Section other : this.open) {
				other.concurrent.add(section);
				section.concurrent.add(other);
			}
			this.open.add(section);
			if (fenced && section.token < this.highestToken) {
				section.rejected = true;
				this.staleReadsRejected++;
				this.log.entered(section.token, false, now);
				return -1;
			}
			this.log.entered(section.token, true, now);
			this.highestToken = Math.max(this.highestToken, section.token);
			return this.value;
		}

		synchronized boolean write(Section section, long newValue, boolean checked, boolean fenced) {
			section.wrote = true;
			section.checkedWrite |= checked;
			if (!checked) {
				this.writesWithoutCheck++;
			}
			boolean stale = section.rejected || section.token < this.highestToken;
			if (stale && fenced) {
				this.staleRejected++;
				this.log.wrote(section.token, false, System.nanoTime());
				return false;
			}
			if (stale) {
				this.staleAccepted++;
			}
			if (newValue != this.value + 1) {
				this.lostUpdates++;
			}
			this.value = newValue;
			this.highestToken = Math.max(this.highestToken, section.token);
			if (this.writesAccepted == this.writeTimes.length) {
				this.writeTimes = Arrays.copyOf(this.writeTimes, this.writeTimes.length * 2);
			}
			long now = System.nanoTime();
			this.writeTimes[(int) this.writesAccepted] = now;
			this.writesAccepted++;
			this.log.wrote(section.token, true, now);
			return true;
		}

		synchronized void leave(Section section) {
			if (this.open.remove(section)) {
				if (!section.wrote) {
					this.sectionsWithoutWrite++;
				}
				if (!section.concurrent.isEmpty()) {
					this.finished.add(section);
				}
			}
		}

		synchronized AccessLog.TokenUse uses(long token, long sinceNanos) {
			return this.log.uses(token, sinceNanos);
		}

		synchronized AccessLog.TokenWindow window(long fromNanos, long toNanos) {
			return this.log.window(fromNanos, toNanos);
		}

		synchronized long highestBefore(long beforeNanos) {
			return this.log.highestBefore(beforeNanos);
		}

		synchronized long peek() {
			return this.value;
		}

		synchronized long[] entryTimes() {
			return Arrays.copyOf(this.entryTimes, this.entries);
		}

		synchronized long[] writeTimes() {
			return Arrays.copyOf(this.writeTimes, (int) this.writesAccepted);
		}

		synchronized ResourceStats stats(String key) {
			long overlaps = 0;
			long concurrentPairs = 0;
			List<Section> all = new ArrayList<>(this.finished);
			all.addAll(this.open);
			for (Section section : all) {
				for (Section other : section.concurrent) {
					// each pair once
					if (other.id > section.id) {
						concurrentPairs++;
						if (section.checkedWrite && other.checkedWrite) {
							overlaps++;
						}
					}
				}
			}
			return new ResourceStats(key, this.entries, this.writesAccepted, this.value, overlaps, concurrentPairs,
					this.staleReadsRejected, this.staleRejected, this.staleAccepted, this.lostUpdates, this.tokenRegressions,
					this.writesWithoutCheck, this.sectionsWithoutWrite, this.open.size());
		}

	}

}
