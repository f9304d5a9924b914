package dev.zklock.leader;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import dev.zklock.faults.WorkerEvents;
import dev.zklock.testsupport.ZooKeeperWorkers;

/**
 * What the application JVMs of a role reported, in order of arrival, and the
 * checks on it. Times are wall-clock milliseconds of one machine, so comparable
 * across processes. Writes go through a fence that, like a store checking fencing
 * tokens, rejects a write whose token is below the largest one it accepted.
 */
final class LeaderTimeline {

	private final List<Event> events = new ArrayList<>();

	private final List<Event> rejectedWrites = new ArrayList<>();

	private final Map<String, Long> ends = new HashMap<>();

	private long fence;

	private int acceptedWrites;

	/**
	 * Take one line of a worker's output.
	 * @param line the line
	 */
	synchronized void accept(String line) {
		if (!line.startsWith(WorkerEvents.PREFIX)) {
			return;
		}
		Event event = Event.parse(line.substring(WorkerEvents.PREFIX.length()));
		if (event.type().equals("write")) {
			if (event.token() < this.fence) {
				this.rejectedWrites.add(event);
			}
			else {
				this.fence = event.token();
				this.acceptedWrites++;
			}
		}
		this.events.add(event);
		notifyAll();
	}

	/**
	 * A worker's leadership, if any, ended at this time without a revocation: it
	 * was killed.
	 * @param worker the worker id
	 * @param at when
	 */
	synchronized void killed(String worker, long at) {
		this.ends.put(worker, at);
	}

	/**
	 * Start application JVMs that report here, each with {@code --id=} and
	 * {@code --connect=}, and wait until each one is ready.
	 * @param workers the workers' fixture
	 * @param mainClass their main class
	 * @param arguments their other arguments
	 * @param startupMillis the longest wait for each
	 * @param ids the workers' ids
	 * @throws AssertionError with the worker's diagnostics when one is not ready in time
	 */
	void startWorkers(ZooKeeperWorkers workers, Class<?> mainClass, List<String> arguments, long startupMillis,
			String... ids) throws InterruptedException {
		for (String id : ids) {
			List<String> all = new ArrayList<>(List.of("--id=" + id, "--connect=" + workers.connectString()));
			all.addAll(arguments);
			workers.start(id, mainClass, all, this::accept);
		}
		for (String id : ids) {
			try {
				await((event) -> event.type().equals("ready") && event.worker().equals(id), startupMillis);
			}
			catch (AssertionError ex) {
				throw new AssertionError(workers.worker(id).diagnostics(), ex);
			}
		}
	}

	synchronized List<Event> events() {
		return List.copyOf(this.events);
	}

	synchronized List<Event> events(String type) {
		return this.events.stream().filter((event) -> event.type().equals(type)).toList();
	}

	synchronized List<Event> rejectedWrites() {
		return List.copyOf(this.rejectedWrites);
	}

	synchronized int acceptedWrites() {
		return this.acceptedWrites;
	}

	/**
	 * Wait for an event.
	 * @param condition the event waited for
	 * @param timeoutMillis the longest wait
	 * @return the first matching event
	 * @throws AssertionError when none came in time
	 */
	synchronized Event await(Predicate<Event> condition, long timeoutMillis) throws InterruptedException {
		long deadline = System.currentTimeMillis() + timeoutMillis;
		while (true) {
			for (Event event : this.events) {
				if (condition.test(event)) {
					return event;
				}
			}
			long left = deadline - System.currentTimeMillis();
			if (left <= 0) {
				throw new AssertionError("No matching event within " + timeoutMillis + " ms; events: " + this.events);
			}
			wait(left);
		}
	}

	/**
	 * The leaderships reported, each from its grant to its revocation (or its
	 * worker's death, or now), in token order.
	 * @return the terms
	 */
	synchronized List<Term> terms() {
		List<Term> terms = new ArrayList<>();
		for (Event grant : events("granted")) {
			long end = this.events.stream()
				.filter((event) -> event.type().equals("revoked") && event.worker().equals(grant.worker())
						&& event.token() == grant.token())
				.mapToLong(Event::at)
				.findFirst()
				.orElse(this.ends.getOrDefault(grant.worker(), Long.MAX_VALUE));
			terms.add(new Term(grant.worker(), grant.token(), grant.at(), end));
		}
		terms.sort(Comparator.comparingLong(Term::token));
		return terms;
	}

	/**
	 * Problems with the leaderships: grants whose tokens do not increase with time,
	 * and two terms at the same instant, except where the earlier term's worker is
	 * one of those that were paused (its token is stale by then, as the fence
	 * shows).
	 * @param paused workers that were paused
	 * @return the problems, none when leadership was exclusive
	 */
	synchronized List<String> leadershipProblems(Set<String> paused) {
		List<String> problems = new ArrayList<>();
		List<Term> terms = terms();
		for (int i = 1; i < terms.size(); i++) {
			Term earlier = terms.get(i - 1);
			Term later = terms.get(i);
			if (later.token() <= earlier.token() || later.start() < earlier.start()) {
				problems.add("token order and grant order differ: " + earlier + " then " + later);
			}
			if (later.start() < earlier.end() && !paused.contains(earlier.worker())) {
				problems.add("two leaders at once: " + earlier + " and " + later);
			}
		}
		return problems;
	}

	/**
	 * Problems with the job's runs: two runs that overlap in time, or a run with a
	 * smaller token after one with a larger token.
	 * @return the problems, none when no two runs overlapped
	 */
	synchronized List<String> runProblems() {
		List<Event> runs = new ArrayList<>(events("run"));
		runs.sort(Comparator.comparingLong(Event::start));
		List<String> problems = new ArrayList<>();
		for (int i = 1; i < runs.size(); i++) {
			Event earlier = runs.get(i - 1);
			Event later = runs.get(i);
			if (later.start() < earlier.end()) {
				problems.add("runs overlap: " + earlier + " and " + later);
			}
			if (later.token() < earlier.token()) {
				problems.add("token went back: " + earlier + " then " + later);
			}
		}
		return problems;
	}

	/**
	 * One reported event.
	 *
	 * @param type granted, revoked, write, run, ready, exited
	 * @param worker the worker id
	 * @param token the token, or 0
	 * @param at when (grants and revocations)
	 * @param start when a run started
	 * @param end when a run ended
	 * @param reason why a leadership was revoked
	 * @param late whether a write was asked for by the test, leader or not
	 */
	record Event(String type, String worker, long token, long at, long start, long end, String reason,
			boolean late) {

		static Event parse(String text) {
			String[] parts = text.split(" ");
			Map<String, String> values = new HashMap<>();
			for (int i = 1; i < parts.length; i++) {
				int equals = parts[i].indexOf('=');
				values.put(parts[i].substring(0, equals), parts[i].substring(equals + 1));
			}
			return new Event(parts[0], values.getOrDefault("id", ""), number(values, "token"), number(values, "at"),
					number(values, "start"), number(values, "end"), values.getOrDefault("reason", ""),
					Boolean.parseBoolean(values.get("late")));
		}

		private static long number(Map<String, String> values, String name) {
			return Long.parseLong(values.getOrDefault(name, "0"));
		}

	}

	/**
	 * One leadership as reported.
	 *
	 * @param worker the leader
	 * @param token its token
	 * @param start when it was granted
	 * @param end when it ended, {@link Long#MAX_VALUE} while it goes on
	 */
	record Term(String worker, long token, long start, long end) {

	}

}
