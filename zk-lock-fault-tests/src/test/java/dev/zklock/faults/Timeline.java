package dev.zklock.faults;

import java.util.Arrays;
import java.util.List;

/**
 * Questions the partition scenarios ask of the resource's entry and write times, all
 * on {@link System#nanoTime()}'s scale.
 */
final class Timeline {

	private Timeline() {
	}

	static long firstAfter(long[] times, long from) {
		for (long time : times) {
			if (time > from) {
				return time;
			}
		}
		return -1;
	}

	static long lastBefore(long[] times, long to) {
		long last = -1;
		for (long time : times) {
			if (time < to) {
				last = time;
			}
		}
		return last;
	}

	static long count(long[] times, long from, long to) {
		return Arrays.stream(times).filter((time) -> time > from && time < to).count();
	}

	static long max(List<Long> times) {
		return times.stream().mapToLong(Long::longValue).max().orElse(0);
	}

	static long millis(long nanos) {
		return nanos / 1_000_000;
	}

}
