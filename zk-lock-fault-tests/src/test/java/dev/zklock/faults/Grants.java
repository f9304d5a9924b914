package dev.zklock.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The attempts on one key's lock of several worker JVMs, read from their
 * {@link GrantLog}s, and what they show: holds that overlap, tokens out of order, how
 * many grants in a row one JVM got while another waited, and each JVM's share. Every
 * time is a {@link System#nanoTime()} of {@code CLOCK_MONOTONIC}, one clock for all
 * the processes; a hold runs from its enter (the acquire returned) to its exit (the
 * release was about to be called), so holds of a lock that excludes never overlap,
 * whatever the scheduler does to the threads.
 */
final class Grants {

	private final List<Attempt> attempts;

	// granted attempts, by enter time
	private final List<Attempt> granted;

	private Grants(List<Attempt> attempts) {
		this.attempts = attempts;
		this.granted = attempts.stream()
			.filter(Attempt::granted)
			.sorted(Comparator.comparingLong(Attempt::enter))
			.toList();
	}

	/**
	 * Read the logs of a load.
	 * @param files each JVM's log, by the JVM's id
	 * @return the attempts
	 */
	static Grants read(Map<String, Path> files) {
		List<Attempt> attempts = new ArrayList<>();
		files.forEach((jvm, file) -> {
			try {
				for (String line : Files.readAllLines(file)) {
					String[] fields = line.split(" ");
					attempts.add(new Attempt(jvm, Integer.parseInt(fields[0]), Long.parseLong(fields[1]),
							Long.parseLong(fields[2]), Long.parseLong(fields[3]), Long.parseLong(fields[4])));
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not read " + file, ex);
			}
		});
		return new Grants(attempts);
	}

	static Grants of(List<Attempt> attempts) {
		return new Grants(attempts);
	}

	List<Attempt> granted() {
		return this.granted;
	}

	long gaveUp() {
		return this.attempts.size() - this.granted.size();
	}

	/**
	 * Holds that began before an earlier hold had ended.
	 * @return the count
	 */
	long overlaps() {
		long overlaps = 0;
		long lastExit = Long.MIN_VALUE;
		for (Attempt grant : this.granted) {
			if (grant.enter() < lastExit) {
				overlaps++;
			}
			lastExit = Math.max(lastExit, grant.exit());
		}
		return overlaps;
	}

	/**
	 * Grants whose token is below the token of the grant before, in grant order.
	 * @return the count
	 */
	long tokenDecreases() {
		long decreases = 0;
		for (int i = 1; i < this.granted.size(); i++) {
			if (this.granted.get(i).token() < this.granted.get(i - 1).token()) {
				decreases++;
			}
		}
		return decreases;
	}

	/**
	 * Grants that repeat the token of the grant before although another JVM holds
	 * them: one token is one node, so one process.
	 * @return the count
	 */
	long tokensSharedAcrossJvms() {
		long shared = 0;
		for (int i = 1; i < this.granted.size(); i++) {
			Attempt previous = this.granted.get(i - 1);
			Attempt grant = this.granted.get(i);
			if (grant.token() == previous.token() && !grant.jvm().equals(previous.jvm())) {
				shared++;
			}
		}
		return shared;
	}

	/**
	 * Grants per JVM.
	 * @return the counts, by JVM
	 */
	Map<String, Long> perJvm() {
		Map<String, Long> counts = new LinkedHashMap<>();
		this.attempts.stream().map(Attempt::jvm).distinct().sorted().forEach((jvm) -> counts.put(jvm, 0L));
		this.granted.forEach((grant) -> counts.merge(grant.jvm(), 1L, Long::sum));
		return counts;
	}

	/**
	 * Runs of grants to one JVM, and how many grants in a row a JVM got while another
	 * JVM waited. JVM B waits at an instant t from the later of the ask of one of its
	 * attempts not yet granted at t and the exit of its last hold before t: a JVM that
	 * holds does not wait for the others. A grant counts as made while B waited when B
	 * had waited for at least {@code grace} by then; the grace is the time the holder
	 * needs to learn of B at all (B's node created, its watch notification delivered).
	 * @param graceNanos the grace
	 * @return the runs
	 */
	Runs runs(long graceNanos) {
		Map<String, List<List<Attempt>>> threads = new HashMap<>();
		for (Attempt attempt : this.attempts) {
			List<List<Attempt>> jvm = threads.computeIfAbsent(attempt.jvm(), (id) -> new ArrayList<>());
			while (jvm.size() <= attempt.thread()) {
				jvm.add(new ArrayList<>());
			}
			jvm.get(attempt.thread()).add(attempt);
		}
		threads.values().forEach((jvm) -> jvm.forEach((list) -> list.sort(Comparator.comparingLong(Attempt::ask))));
		WaitClock clock = new WaitClock(threads);
		int runs = 0;
		int longest = 0;
		int longestWhileWaiting = 0;
		int current = 0;
		int whileWaiting = 0;
		String holder = null;
		for (Attempt grant : this.granted) {
			if (!grant.jvm().equals(holder)) {
				holder = grant.jvm();
				runs++;
				current = 0;
				whileWaiting = 0;
			}
			current++;
			long waited = clock.longestWait(grant.jvm(), grant.enter());
			whileWaiting = (waited >= graceNanos) ? whileWaiting + 1 : 0;
			longest = Math.max(longest, current);
			longestWhileWaiting = Math.max(longestWhileWaiting, whileWaiting);
			clock.exited(grant.jvm(), grant.exit());
		}
		return new Runs(runs, longest, longestWhileWaiting, (runs > 0) ? (double) this.granted.size() / runs : 0);
	}

	/**
	 * One attempt of one worker thread.
	 *
	 * @param jvm the worker JVM's id
	 * @param thread the thread's number in its JVM
	 * @param ask when it asked for the lock
	 * @param enter when the acquire returned the lock, -1 when it gave up
	 * @param exit when it was about to release, or when it gave up
	 * @param token the fencing token, 0 when it gave up
	 */
	record Attempt(String jvm, int thread, long ask, long enter, long exit, long token) {

		boolean granted() {
			return this.enter >= 0;
		}

		// when the attempt stopped waiting
		long end() {
			return granted() ? this.enter : this.exit;
		}

	}

	/**
	 * The runs of a load.
	 *
	 * @param count runs of grants to one JVM
	 * @param longest the most grants in one run
	 * @param longestWhileWaiting the most grants in a row to one JVM while another
	 * JVM waited
	 * @param mean grants per run
	 */
	record Runs(int count, int longest, int longestWhileWaiting, double mean) {

	}

	/**
	 * Since when each JVM waits, swept forward in grant order: the attempt each of its
	 * threads is at, and the exit of its last hold.
	 */
	private static final class WaitClock {

		private final Map<String, List<List<Attempt>>> threads;

		private final Map<String, int[]> positions = new HashMap<>();

		private final Map<String, Long> lastExits = new HashMap<>();

		WaitClock(Map<String, List<List<Attempt>>> threads) {
			this.threads = threads;
			threads.forEach((jvm, list) -> this.positions.put(jvm, new int[list.size()]));
		}

		void exited(String jvm, long exit) {
			this.lastExits.merge(jvm, exit, Math::max);
		}

		// how long the JVM that waits longest, other than the holder, has waited at the instant, -1 when none waits
		long longestWait(String holder, long instant) {
			long longest = -1;
			for (Map.Entry<String, List<List<Attempt>>> jvm : this.threads.entrySet()) {
				if (jvm.getKey().equals(holder)) {
					continue;
				}
				long since = waitingSince(jvm.getKey(), jvm.getValue(), instant);
				if (since != Long.MAX_VALUE) {
					longest = Math.max(longest, instant - since);
				}
			}
			return longest;
		}

		private long waitingSince(String jvm, List<List<Attempt>> threads, long instant) {
			int[] position = this.positions.get(jvm);
			long earliestAsk = Long.MAX_VALUE;
			for (int i = 0; i < threads.size(); i++) {
				List<Attempt> attempts = threads.get(i);
				while (position[i] + 1 < attempts.size() && attempts.get(position[i] + 1).ask() <= instant) {
					position[i]++;
				}
				if (attempts.isEmpty()) {
					continue;
				}
				Attempt at = attempts.get(position[i]);
				if (at.ask() <= instant && at.end() > instant) {
					earliestAsk = Math.min(earliestAsk, at.ask());
				}
			}
			if (earliestAsk == Long.MAX_VALUE) {
				return Long.MAX_VALUE;
			}
			return Math.max(earliestAsk, this.lastExits.getOrDefault(jvm, Long.MIN_VALUE));
		}

	}

}
