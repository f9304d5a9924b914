package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlock.Edge;
import dev.zklock.LockDeadlock.Party;

/**
 * The checker's control of one victim per cycle, for {@link UnsafeControlTests}: once
 * the engine's victim of a cycle has its {@code LockDeadlockException}, and before it
 * releases its outer lock, every other member of the cycle that waits in this JVM is
 * ended too, with a report naming itself as the victim: a victim rule that differs
 * per member, each choosing itself. It lives in the schedule's callers, not in the
 * engine: the engine's verdict re-checks every record of the cycle in the
 * transaction that deletes its victim's, so no second member can commit one, and no
 * hook of production code is needed to break that.
 */
final class SecondVictims {

	// how long the engine's victim waits for the others to end: an interrupt ends a wait at once
	private static final long ENDED_WITHIN_SECONDS = 10;

	private final Map<String, Waiter> waiting = new ConcurrentHashMap<>();

	/**
	 * A nested wait under way on a thread of this JVM.
	 * @param key its process and thread, as a deadlock's report names them
	 * @param thread the waiting thread
	 * @param chosen the report this control ended it with, if it did
	 * @param ended counted down once its wait ended
	 */
	record Waiter(String key, Thread thread, AtomicReference<@Nullable LockDeadlock> chosen, CountDownLatch ended) {
	}

	/**
	 * The calling thread begins a nested wait.
	 * @return the wait, to be ended with {@link #ended(Waiter)}
	 */
	Waiter waiting() {
		Thread thread = Thread.currentThread();
		Waiter waiter = new Waiter(key(ProcessHandle.current().pid(), thread.getName()), thread,
				new AtomicReference<>(), new CountDownLatch(1));
		this.waiting.put(waiter.key(), waiter);
		return waiter;
	}

	/**
	 * A nested wait ended, by its answer or by this control.
	 * @param waiter the wait
	 */
	void ended(Waiter waiter) {
		this.waiting.remove(waiter.key(), waiter);
		waiter.ended().countDown();
	}

	/**
	 * The engine failed the calling thread's wait as its cycle's victim: end the
	 * other members' waits as victims too, and return once they ended.
	 * @param deadlock the engine's report
	 */
	void failOthers(LockDeadlock deadlock) throws InterruptedException {
		String self = key(ProcessHandle.current().pid(), Thread.currentThread().getName());
		List<Waiter> chosen = new ArrayList<>();
		for (Edge edge : deadlock.edges()) {
			Party member = edge.waiter();
			Waiter waiter = this.waiting.get(key(member.pid(), member.thread()));
			if (waiter != null && !waiter.key().equals(self)
					&& waiter.chosen().compareAndSet(null, asVictim(deadlock, member))) {
				waiter.thread().interrupt();
				chosen.add(waiter);
			}
		}
		for (Waiter waiter : chosen) {
			waiter.ended().await(ENDED_WITHIN_SECONDS, TimeUnit.SECONDS);
		}
	}

	// The report a member that chose itself would have: the same edges, starting at its own wait
	private static LockDeadlock asVictim(LockDeadlock deadlock, Party member) {
		List<Edge> edges = deadlock.edges();
		int first = 0;
		while (first < edges.size() && !edges.get(first).waiter().equals(member)) {
			first++;
		}
		List<Edge> rotated = new ArrayList<>(edges.subList(first, edges.size()));
		rotated.addAll(edges.subList(0, first));
		return new LockDeadlock(deadlock.detectedAt(), member, rotated);
	}

	private static String key(long pid, String thread) {
		return pid + "/" + thread;
	}

}
