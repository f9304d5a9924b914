package dev.zklock.faults;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The attempts of a {@link WorkerLoad} with {@code record=<file>}, on
 * {@link System#nanoTime()}, which is {@code CLOCK_MONOTONIC} and so one clock for
 * every process of the machine: when the thread asked for the lock, when the acquire
 * returned it (the hold's enter), when the thread was about to release it (its exit),
 * and its token. Kept in memory, one list per thread, and written when the load ends,
 * one line per attempt: {@code thread ask enter exit token}, with enter {@code -1} for
 * an attempt that gave up and exit the time it did. Read back by {@link Grants}.
 */
final class GrantLog {

	private final Path file;

	private final Queue<List<long[]>> threads = new ConcurrentLinkedQueue<>();

	GrantLog(Path file) {
		this.file = file;
	}

	/**
	 * The list of one thread, to add its attempts to without a lock.
	 * @return the list
	 */
	List<long[]> thread() {
		List<long[]> attempts = new ArrayList<>();
		this.threads.add(attempts);
		return attempts;
	}

	static void granted(List<long[]> attempts, long ask, long enter, long exit, long token) {
		attempts.add(new long[] { ask, enter, exit, token });
	}

	static void gaveUp(List<long[]> attempts, long ask, long end) {
		attempts.add(new long[] { ask, -1, end, 0 });
	}

	/**
	 * Write every thread's attempts; call once every thread has finished.
	 */
	void write() {
		try (BufferedWriter out = Files.newBufferedWriter(this.file, StandardCharsets.US_ASCII)) {
			int thread = 0;
			for (List<long[]> attempts : this.threads) {
				for (long[] attempt : attempts) {
					out.write(thread + " " + attempt[0] + " " + attempt[1] + " " + attempt[2] + " " + attempt[3]);
					out.newLine();
				}
				thread++;
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the grants to " + this.file, ex);
		}
	}

}
