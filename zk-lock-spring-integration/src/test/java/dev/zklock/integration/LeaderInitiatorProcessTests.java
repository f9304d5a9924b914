package dev.zklock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.faults.WorkerEvent;
import dev.zklock.faults.WorkerEvents;
import dev.zklock.testsupport.ZooKeeperProcess;
import dev.zklock.testsupport.ZooKeeperWorkers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration leadership across JVMs: three {@link LeaderInitiatorWorker}s,
 * whose {@code LockRegistryLeaderInitiator} runs over {@link ZkLockRegistry} with 4 s
 * sessions, elect exactly one leader; after a {@code kill -9} of the leader another
 * takes over within the session plus 2 s; the next leader, stopped with
 * {@code SIGSTOP} past its session, is replaced, and its write with its old token is
 * rejected by a fence here that keeps the highest token it saw. Times are
 * {@link System#nanoTime()} of one machine.
 */
class LeaderInitiatorProcessTests {

	private static final long SESSION_MILLIS = 4_000;

	// the server expires sessions in buckets of its tick: up to a tick past the timeout
	private static final long TICK_MILLIS = ZooKeeperProcess.DEFAULT_TICK_TIME.toMillis();

	private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	@RegisterExtension
	static final ZooKeeperWorkers workers = new ZooKeeperWorkers(JVM_OPTIONS);

	private final List<Event> events = new ArrayList<>();

	private final List<Event> rejected = new ArrayList<>();

	private long highestToken;

	@Test
	void oneLeaderTakeOverAfterKillAndTheOldLeadersFencedWriteIsRejected() throws Exception {
		for (String id : List.of("a", "b", "c")) {
			workers.start(id, LeaderInitiatorWorker.class, List.of("--id=" + id, "--connect=" + workers.connectString()),
					this::accept);
		}
		await().atMost(Duration.ofSeconds(120)).until(() -> count(type("ready")) == 3);
		Event first = awaitEvent(type("granted"), 30_000);
		// some 10 heartbeats later, still one grant and no revocation
		long since = System.nanoTime();
		await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - since > TimeUnit.SECONDS.toNanos(2));
		assertThat(count(type("granted"))).as("exactly one leader").isOne();
		assertThat(count(type("revoked"))).isZero();

		workers.worker(first.worker()).kill();
		long killedAt = System.nanoTime();
		Event second = awaitEvent(type("granted").and((event) -> !event.worker().equals(first.worker())),
				SESSION_MILLIS + 10_000);
		long takeOverMillis = TimeUnit.NANOSECONDS.toMillis(second.at() - killedAt);
		assertThat(second.token()).isGreaterThan(first.token());

		workers.worker(second.worker()).pause();
		long pausedAt = System.nanoTime();
		Event third = awaitEvent(type("granted").and((event) -> event.token() > second.token()), SESSION_MILLIS + 20_000);
		awaitEvent(type("write").and((event) -> event.token() == third.token()), 10_000);
		workers.worker(second.worker()).resume();
		awaitEvent(type("revoked").and((event) -> event.worker().equals(second.worker())), 30_000);
		workers.worker(second.worker()).send("write");
		Event late = awaitEvent((event) -> event.late() && event.worker().equals(second.worker()), 10_000);
		workers.worker(third.worker()).send("write");
		Event current = awaitEvent((event) -> event.late() && event.worker().equals(third.worker()), 10_000);
		System.err.printf("SI LEADERSHIP: leader %s, take-over by %s %d ms after kill -9; %s replaced by %s %d ms "
				+ "after SIGSTOP; %d writes rejected%n", first.worker(), second.worker(), takeOverMillis,
				second.worker(), third.worker(), TimeUnit.NANOSECONDS.toMillis(third.at() - pausedAt),
				rejected().size());
		// the session and the server's tick, then a second for the next candidate's grant
		assertThat(takeOverMillis).as("take-over after kill -9, ms").isLessThan(SESSION_MILLIS + TICK_MILLIS + 1_000);
		assertThat(third.worker()).isNotIn(first.worker(), second.worker());
		assertThat(rejected()).as("the old leader's fenced write").contains(late);
		assertThat(rejected()).as("the current leader's write").doesNotContain(current);
		assertThat(rejected()).allSatisfy((event) -> assertThat(event.worker()).isEqualTo(second.worker()));
	}

	private synchronized void accept(String line) {
		if (!line.startsWith(WorkerEvents.PREFIX)) {
			return;
		}
		WorkerEvent reported = WorkerEvent.parse(line, System.nanoTime());
		Event event = new Event(reported.type(), reported.id(), Long.parseLong(reported.fields().getOrDefault("token",
				"0")), Long.parseLong(reported.fields().getOrDefault("at", String.valueOf(reported.receivedNanos()))),
				Boolean.parseBoolean(reported.fields().get("late")));
		this.events.add(event);
		// the fence: a write with a token below the highest seen is rejected
		if (event.type().equals("write")) {
			if (event.token() < this.highestToken) {
				this.rejected.add(event);
			}
			this.highestToken = Math.max(this.highestToken, event.token());
		}
	}

	private synchronized long count(Predicate<Event> filter) {
		return this.events.stream().filter(filter).count();
	}

	private synchronized List<Event> rejected() {
		return List.copyOf(this.rejected);
	}

	private Event awaitEvent(Predicate<Event> filter, long millis) {
		return await().atMost(Duration.ofMillis(millis)).until(() -> first(filter), (found) -> found != null);
	}

	private synchronized Event first(Predicate<Event> filter) {
		return this.events.stream().filter(filter).findFirst().orElse(null);
	}

	private static Predicate<Event> type(String type) {
		return (event) -> event.type().equals(type);
	}

	/**
	 * One reported event.
	 *
	 * @param type its type
	 * @param worker the worker
	 * @param token the fencing token, 0 for none
	 * @param at when, in {@link System#nanoTime()}
	 * @param late whether a write was asked for by the test
	 */
	record Event(String type, String worker, long token, long at, boolean late) {

	}

}
