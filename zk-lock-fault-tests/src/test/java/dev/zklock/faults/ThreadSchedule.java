package dev.zklock.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the Linux scheduler says about the calling thread, from
 * {@code /proc/thread-self}: time on a CPU, time runnable but waiting for one, and
 * how often it gave the CPU up (blocked) or had it taken away (preempted). The
 * difference of two snapshots tells why a stretch of wall time took longer than its
 * CPU time. All -1 where the files cannot be read (not Linux).
 *
 * @param onCpuNanos time spent running
 * @param runQueueNanos time spent runnable, waiting for a CPU
 * @param voluntarySwitches times the thread blocked (a lock, a park, I/O, a safepoint)
 * @param involuntarySwitches times the scheduler preempted it
 */
record ThreadSchedule(long onCpuNanos, long runQueueNanos, long voluntarySwitches, long involuntarySwitches) {

	private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

	private static final Path STATUS = Path.of("/proc/thread-self/status");

	private static final Path LOADAVG = Path.of("/proc/loadavg");

	/**
	 * The calling thread's figures now.
	 * @return the snapshot
	 */
	static ThreadSchedule now() {
		try {
			String[] schedstat = read(SCHEDSTAT).trim().split(" ");
			long voluntary = -1;
			long involuntary = -1;
			for (String line : read(STATUS).split("\n")) {
				if (line.startsWith("voluntary_ctxt_switches:")) {
					voluntary = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
				else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
					involuntary = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
			return new ThreadSchedule(Long.parseLong(schedstat[0]), Long.parseLong(schedstat[1]), voluntary,
					involuntary);
		}
		catch (IOException | RuntimeException ex) {
			return new ThreadSchedule(-1, -1, -1, -1);
		}
	}

	/**
	 * The number of runnable threads on the machine right now, as {@code /proc/loadavg}
	 * counts them (including the caller).
	 * @return the count, -1 where it cannot be read
	 */
	static long runnableThreads() {
		try {
			String field = read(LOADAVG).split(" ")[3];
			return Long.parseLong(field.substring(0, field.indexOf('/')));
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/**
	 * The figures from an earlier snapshot to this one.
	 * @param earlier the earlier snapshot
	 * @return the differences
	 */
	ThreadSchedule since(ThreadSchedule earlier) {
		return new ThreadSchedule(this.onCpuNanos - earlier.onCpuNanos, this.runQueueNanos - earlier.runQueueNanos,
				this.voluntarySwitches - earlier.voluntarySwitches,
				this.involuntarySwitches - earlier.involuntarySwitches);
	}

	private static String read(Path path) throws IOException {
		return new String(Files.readAllBytes(path), StandardCharsets.US_ASCII);
	}

}
