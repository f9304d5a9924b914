package dev.zklock.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LockRegistry.Hold;
import dev.zklock.faults.WorkerEvents;

/**
 * Every hold the {@link SemaphoreWorker} JVMs reported, and how many overlapped. A
 * hold runs from its {@code enter} time (taken after the acquire returned) to its
 * {@code exit} time (taken before the release was called), both
 * {@link System#nanoTime()} of the same {@code CLOCK_MONOTONIC}, so a count of
 * overlapping holds never misses a holder. Where an enter and an exit fall on the same
 * nanosecond, the enter counts first, which can only raise the count.
 */
final class HolderTimeline {

	/** An open hold's exit time. */
	static final long OPEN = Long.MAX_VALUE;

	private final List<Hold> holds = new ArrayList<>();

	// the open hold of each worker thread
	private final Map<String, Hold> open = new HashMap<>();

	private final List<Map<String, String>> others = new ArrayList<>();

	// lines that break the enter-exit pairing; an output listener must not throw
	private final List<String> problems = new ArrayList<>();

	/**
	 * Take one line of a worker's output.
	 * @param line the line
	 */
	synchronized void accept(String line) {
		if (!line.startsWith(WorkerEvents.PREFIX)) {
			return;
		}
		String[] parts = line.substring(WorkerEvents.PREFIX.length()).split(" ");
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("type", parts[0]);
		for (int i = 1; i < parts.length; i++) {
			int equals = parts[i].indexOf('=');
			fields.put(parts[i].substring(0, equals), parts[i].substring(equals + 1));
		}
		String thread = fields.get("id") + "/" + fields.get("thread");
		if (parts[0].equals("enter")) {
			Hold hold = new Hold(field(fields, "id"), thread, Long.parseLong(field(fields, "token")),
					field(fields, "session"), Long.parseLong(field(fields, "at")),
					Boolean.parseBoolean(field(fields, "linger")), Boolean.parseBoolean(field(fields, "held")));
			Hold previous = this.open.put(thread, hold);
			if (previous != null) {
				this.problems.add("entered twice without an exit: " + line);
			}
			this.holds.add(hold);
		}
		else if (parts[0].equals("exit")) {
			Hold hold = this.open.remove(thread);
			if (hold == null || hold.token != Long.parseLong(field(fields, "token"))) {
				this.problems.add("exit without its enter: " + line);
			}
			else {
				hold.exit = Long.parseLong(field(fields, "at"));
			}
		}
		else {
			this.others.add(fields);
		}
		notifyAll();
	}

	/**
	 * Wait until a condition on the timeline holds.
	 * @param what what is waited for, for the error
	 * @param condition the condition, checked under the timeline's lock
	 * @param timeoutMillis the longest wait
	 */
	synchronized void await(String what, Predicate<HolderTimeline> condition, long timeoutMillis)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
		while (!condition.test(this)) {
			long left = (deadline - System.nanoTime()) / 1_000_000;
			if (left <= 0) {
				throw new AssertionError("Timed out after " + timeoutMillis + " ms waiting for " + what + "; "
						+ this.holds.size() + " holds, other events " + this.others);
			}
			wait(left);
		}
	}

	synchronized List<String> problems() {
		return List.copyOf(this.problems);
	}

	synchronized List<Hold> holds() {
		return List.copyOf(this.holds);
	}

	/**
	 * The events other than enter and exit, such as {@code ready} and {@code done}.
	 * @param type the event type
	 * @return their fields
	 */
	synchronized List<Map<String, String>> events(String type) {
		return this.others.stream().filter((event) -> type.equals(event.get("type"))).toList();
	}

	/**
	 * The most holds that overlap at any instant.
	 * @param holds the holds, each from enter to its exit (or the end it was given)
	 * @return the maximum and the first instant it was reached
	 */
	static Peak peak(List<Hold> holds) {
		return peak(holds, Long.MIN_VALUE, Long.MAX_VALUE);
	}

	/**
	 * The most holds that overlap at any instant from {@code from} to {@code to}.
	 * @param holds the holds
	 * @param from the start of the window, nanoTime
	 * @param to its end
	 * @return the maximum and the first instant it was reached
	 */
	static Peak peak(List<Hold> holds, long from, long to) {
		int count = 0;
		int max = 0;
		long at = 0;
		for (long[] point : points(holds, from, to)) {
			count += (int) point[1];
			if (count > max) {
				max = count;
				at = point[0];
			}
		}
		return new Peak(max, at);
	}

	/**
	 * The first instant after {@code from} at which more than {@code limit} of the
	 * holds overlap.
	 * @param holds the holds
	 * @param from the earliest instant
	 * @param limit the count to exceed
	 * @return the instant, or null when the count never went over the limit after it
	 */
	static @Nullable Long firstAbove(List<Hold> holds, long from, int limit) {
		int count = 0;
		for (long[] point : points(holds, Long.MIN_VALUE, Long.MAX_VALUE)) {
			count += (int) point[1];
			if (point[0] >= from && count > limit) {
				return point[0];
			}
		}
		return null;
	}

	// +1 at each enter and -1 at each end, cut to the window, by time and at the same time enters first
	private static List<long[]> points(List<Hold> holds, long from, long to) {
		List<long[]> points = new ArrayList<>();
		for (Hold hold : holds) {
			long start = Math.max(hold.enter, from);
			long end = Math.min(hold.end(), to);
			if (start < end) {
				points.add(new long[] { start, 1 });
				points.add(new long[] { end, -1 });
			}
		}
		points.sort(Comparator.<long[]>comparingLong((point) -> point[0]).thenComparingLong((point) -> -point[1]));
		return points;
	}

	private static String field(Map<String, String> fields, String name) {
		String value = fields.get(name);
		if (value == null) {
			throw new IllegalStateException("Event without " + name + ": " + fields);
		}
		return value;
	}

	/**
	 * One hold of the lock by one worker thread.
	 */
	static final class Hold {

		final String worker;

		final String thread;

		final long token;

		final String session;

		final long enter;

		final boolean linger;

		// whether the handle said it was held when the hold began
		final boolean held;

		volatile long exit = OPEN;

		// for an open hold of a killed worker: until when it counts
		volatile long openUntil = OPEN;

		Hold(String worker, String thread, long token, String session, long enter, boolean linger, boolean held) {
			this.worker = worker;
			this.thread = thread;
			this.token = token;
			this.session = session;
			this.enter = enter;
			this.linger = linger;
			this.held = held;
		}

		boolean isOpen() {
			return this.exit == OPEN;
		}

		long end() {
			return isOpen() ? this.openUntil : this.exit;
		}

		@Override
		public String toString() {
			return this.thread + "[" + this.token + "]";
		}

	}

	/**
	 * The most holds at once.
	 *
	 * @param holders how many
	 * @param at the first instant with that many, nanoTime
	 */
	record Peak(int holders, long at) {

	}

}
