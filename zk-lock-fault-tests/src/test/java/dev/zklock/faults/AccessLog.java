package dev.zklock.faults;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Every entry and write of one key's {@link ProtectedResource} counter, with its
 * fencing token, its time and whether the counter took it, so that a scenario can ask
 * what the holders of one token did after a fault. Not thread-safe: the counter calls
 * it under its lock.
 */
final class AccessLog {

	private static final int ENTERED = 0;

	private static final int ENTRY_REJECTED = 1;

	private static final int WRITTEN = 2;

	private static final int WRITE_REJECTED = 3;

	private long[] times = new long[1024];

	private long[] tokens = new long[1024];

	private byte[] kinds = new byte[1024];

	private int size;

	void entered(long token, boolean accepted, long nanos) {
		add(token, accepted ? ENTERED : ENTRY_REJECTED, nanos);
	}

	void wrote(long token, boolean accepted, long nanos) {
		add(token, accepted ? WRITTEN : WRITE_REJECTED, nanos);
	}

	private void add(long token, int kind, long nanos) {
		if (this.size == this.times.length) {
			this.times = Arrays.copyOf(this.times, this.size * 2);
			this.tokens = Arrays.copyOf(this.tokens, this.size * 2);
			this.kinds = Arrays.copyOf(this.kinds, this.size * 2);
		}
		this.times[this.size] = nanos;
		this.tokens[this.size] = token;
		this.kinds[this.size] = (byte) kind;
		this.size++;
	}

	/**
	 * What the holders of one token did from a time on.
	 * @param token the token
	 * @param sinceNanos the earliest {@link System#nanoTime()} to count
	 * @return the counts
	 */
	TokenUse uses(long token, long sinceNanos) {
		long[] counts = new long[4];
		for (int i = 0; i < this.size; i++) {
			if (this.tokens[i] == token && this.times[i] >= sinceNanos) {
				counts[this.kinds[i]]++;
			}
		}
		return new TokenUse(token, counts[ENTERED] + counts[ENTRY_REJECTED], counts[ENTRY_REJECTED], counts[WRITTEN],
				counts[WRITE_REJECTED]);
	}

	/**
	 * The sections entered from one time to another, both excluded, and their tokens.
	 * @param fromNanos the start
	 * @param toNanos the end
	 * @return the counts
	 */
	TokenWindow window(long fromNanos, long toNanos) {
		Map<Long, Long> sections = new HashMap<>();
		for (int i = 0; i < this.size; i++) {
			if ((this.kinds[i] == ENTERED || this.kinds[i] == ENTRY_REJECTED) && this.times[i] > fromNanos
					&& this.times[i] < toNanos) {
				sections.merge(this.tokens[i], 1L, Long::sum);
			}
		}
		return new TokenWindow(sections.values().stream().mapToLong(Long::longValue).sum(), sections.size(),
				sections.values().stream().mapToLong(Long::longValue).max().orElse(0));
	}

	/**
	 * The highest token of an accepted entry or write before a time.
	 * @param beforeNanos the time, {@link System#nanoTime()}
	 * @return the token, 0 when there was none
	 */
	long highestBefore(long beforeNanos) {
		long highest = 0;
		for (int i = 0; i < this.size; i++) {
			if (this.times[i] < beforeNanos && (this.kinds[i] == ENTERED || this.kinds[i] == WRITTEN)) {
				highest = Math.max(highest, this.tokens[i]);
			}
		}
		return highest;
	}

	/**
	 * The sections of a stretch of time.
	 *
	 * @param sections sections entered
	 * @param tokens distinct tokens among them: nodes that held, as holders of one
	 * tenure share a token
	 * @param mostOfOneToken the most sections entered with one token
	 */
	record TokenWindow(long sections, long tokens, long mostOfOneToken) {

		@Override
		public String toString() {
			return this.sections + " sections/" + this.tokens + " tokens";
		}

	}

	/**
	 * What the resource did with the accesses of one token.
	 *
	 * @param token the token
	 * @param sections sections entered with it
	 * @param sectionsRejected of those, sections the fenced resource rejected on entry
	 * @param writesAccepted writes with it that the resource applied
	 * @param writesRejected writes with it that the resource rejected
	 */
	record TokenUse(long token, long sections, long sectionsRejected, long writesAccepted, long writesRejected) {

		/**
		 * Stale accesses the resource turned away: rejected entries and writes.
		 * @return the count
		 */
		long rejected() {
			return this.sectionsRejected + this.writesRejected;
		}

	}

}
