package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.Held;
import dev.zklock.schedules.History.Hold;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A schedule's holder against a real server: what it streams, as a client process
 * streams it to the test JVM, must be its record up to any moment the process may be
 * killed.
 */
class HeldLockTests {

	private static final AtomicInteger runs = new AtomicInteger();

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(ScheduleRunner::startServer);

	/**
	 * The soak's seed 4660853804639219213: a WRITE whose session the server closed
	 * (EXPIRE) went in doubt at once and its holder saw it, but the holder, a careless
	 * caller pacing to its nested READ at half its hold, records its hold only once
	 * done with that READ, and its process was killed first: the hold was recorded
	 * until the kill. The loss it saw is streamed the moment it sees it, as the hold
	 * the step records later will have it.
	 */
	@Test
	void aHolderStreamsTheLossItSeesAtOnceNotWhenItsStepRecordsTheHold() throws Exception {
		Queue<Object> streamed = new ConcurrentLinkedQueue<>();
		History history = new History(streamed::add);
		LockRequest write = LockRequest.named("rw").keys("a").mode(LockMode.WRITE).timeout(Duration.ofSeconds(10)).build();
		try (ScheduleClient client = new ScheduleClient(2, List.of(server.get().port()),
				"/schedules/held-lock-" + runs.incrementAndGet(), history)) {
			LockHandle handle = client.manager.acquire(write);
			assertThat(handle.isHeld()).isTrue();
			HeldLock held = new HeldLock(0, client, handle, List.of("a"), 1, false);
			assertThat(held.believes()).isTrue();
			long expired = System.nanoTime();
			ZooKeeperSessions.expire(client.curator);
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> !held.believes());
			long seen = System.nanoTime();
			assertThat(history.holds()).as("nothing recorded: the step is not done with its hold").isEmpty();
			List<Hold> losses = streamed.stream()
				.filter(Held.class::isInstance)
				.map((event) -> ((Held) event).hold())
				.filter(Hold::lost)
				.toList();
			assertThat(losses).as("the loss, streamed as the holder saw it").hasSize(1);
			Hold loss = losses.get(0);
			assertThat(loss.token()).isEqualTo(handle.fencingToken("a"));
			assertThat(loss.end()).isBetween(expired, seen);
			held.record(history);
			assertThat(history.holds()).as("the step's record, later, ends the hold where the stream did")
				.containsExactly(loss);
			release(handle);
		}
	}

	// as a step releases: with the connection still down, ZooKeeper may not confirm it, and the session's end
	// takes the node anyway
	private static void release(LockHandle handle) {
		try {
			handle.close();
		}
		catch (LockException ex) {
			assertThat(ex).hasMessageContaining("the lock is no longer held by this process");
		}
	}

}
