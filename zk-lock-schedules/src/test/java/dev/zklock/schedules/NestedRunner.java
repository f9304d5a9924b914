package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlockException;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.CycleMember;
import dev.zklock.schedules.History.Outcome;
import dev.zklock.schedules.Schedule.Nested;

/**
 * Runs one {@link Nested} step on the calling worker thread: the outer lock, a hold,
 * the inner lock inside it, a moment with both, then the releases, recording every
 * wait with its thread ({@link History.NestedWait}), every hold, and the outer lock's
 * writes as {@link StepRunner} does, and a {@code LockDeadlockException} with the cycle's
 * members as it reports them ({@link History.DeadlockFailure}). A deadlock's victim
 * unwinds as a caller does: it releases its outer lock.
 */
final class NestedRunner {

	private static final long PID = ProcessHandle.current().pid();

	private final ScheduleClient client;

	private final History history;

	private final FencedStore store;

	NestedRunner(ScheduleClient client, History history, FencedStore store) {
		this.client = client;
		this.history = history;
		this.store = store;
	}

	void run(int id, Nested step) throws InterruptedException {
		String name = step.family().lockName;
		LockHandle outer = acquire(id, step, step.outerKey(), step.outerMode(), false);
		if (outer == null) {
			return;
		}
		HeldLock held = new HeldLock(id, this.client, outer, List.of(step.outerKey()), 1, false);
		try {
			held.write(this.store);
			if (held.holdUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.outerHoldMillis()))) {
				LockHandle inner = acquire(id, step, step.innerKey(), step.innerMode(), true);
				if (inner != null) {
					// the inner lock writes nothing: the checker dates all of a step's writes from its first grant, and
					// the inner one comes after the other member's grant of that key
					HeldLock nested = new HeldLock(id, this.client, inner, List.of(step.innerKey()), 1, false);
					nested.holdUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.innerHoldMillis()), held);
					nested.record(this.history);
					held.watchDuring(() -> release(id, name, inner));
				}
			}
			held.write(this.store);
			held.record(this.history);
		}
		finally {
			release(id, name, outer);
		}
	}

	// One wait, recorded with its thread; a deadlock's victim is recorded as such, and is no failed op
	private @Nullable LockHandle acquire(int id, Nested step, String key, LockMode mode, boolean inside)
			throws InterruptedException {
		LockRequest request = LockRequest.named(step.family().lockName)
			.keys(key)
			.mode(mode)
			.timeout(Duration.ofMillis(step.timeoutMillis()))
			.build();
		String lockKey = step.family().lockName + "/" + key;
		String description = (inside ? "inner " : "outer ") + mode + " " + lockKey + " of " + step;
		SecondVictims control = this.client.secondVictims;
		SecondVictims.Waiter waiter = (control != null && inside) ? control.waiting() : null;
		long invoked = System.nanoTime();
		LockHandle handle = null;
		LockException failure = null;
		try {
			handle = this.client.manager.acquire(request);
		}
		catch (LockException ex) {
			failure = ex;
		}
		finally {
			if (waiter != null) {
				control.ended(waiter);
			}
		}
		long completed = System.nanoTime();
		// an interrupt of the control that came with the answer is not for what follows
		Thread.interrupted();
		boolean granted = handle != null && handle.isAcquired();
		this.history.nestedWait(new History.NestedWait(id, this.client.index, PID, Thread.currentThread().getName(),
				lockKey, mode, invoked, completed, granted));
		LockDeadlock chosen = (waiter != null && !granted) ? waiter.chosen().get() : null;
		if (chosen == null && failure instanceof LockDeadlockException deadlock) {
			chosen = deadlock.getDeadlock();
			if (control != null) {
				control.failOthers(chosen);
			}
		}
		if (chosen != null) {
			this.history.deadlockFailure(new History.DeadlockFailure(id, this.client.index, lockKey, completed,
					members(chosen)));
			return null;
		}
		if (granted) {
			// no op of a grant: HistoryChecker.granted() takes a step's granted op for the grant of each of its first
			// holds, and the inner hold's grant comes long after the outer's
			return handle;
		}
		this.history.op(new History.Op(id, this.client.index, description,
				TimeUnit.MILLISECONDS.toNanos(step.timeoutMillis()), invoked, completed,
				(failure != null) ? Outcome.FAILED : Outcome.TIMED_OUT, -1, (failure != null) ? failure.toString() : null));
		return null;
	}

	static List<CycleMember> members(LockDeadlock deadlock) {
		return deadlock.edges()
			.stream()
			.map((edge) -> new CycleMember(edge.waiter().pid(), edge.waiter().thread(),
					edge.waitsFor().name() + "/" + edge.waitsFor().key()))
			.toList();
	}

	private void release(int id, String name, LockHandle handle) {
		StepRunner.release(this.history, this.client.index, id, "release of " + name, handle);
	}

}
