package dev.zklock.schedules;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.schedules.History.Outcome;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.Nesting;

/**
 * Runs one acquisition of a schedule on the calling worker thread: ask, maybe give
 * up, hold (with its nesting), write to the fenced store, release, and record it all.
 */
final class StepRunner {

	/** Longer than any wait a schedule asks for: past it, an acquisition hangs. */
	static final Duration HANG = Duration.ofSeconds(30);

	private final ScheduleClient client;

	private final History history;

	private final FencedStore store;

	private final ScheduledExecutorService timers;

	private final boolean trusting;

	StepRunner(ScheduleClient client, History history, FencedStore store, ScheduledExecutorService timers,
			boolean trusting) {
		this.client = client;
		this.history = history;
		this.store = store;
		this.timers = timers;
		this.trusting = trusting;
	}

	void acquire(int id, Acquire step) throws InterruptedException {
		LockRequest request = request(step, step.mode(), step.timeoutMillis());
		AtomicLong givenUp = new AtomicLong(-1);
		long invoked = System.nanoTime();
		if (step.async()) {
			acquireAsync(id, step, request, invoked, givenUp);
			return;
		}
		Thread worker = Thread.currentThread();
		ScheduledFuture<?> interrupter = (step.giveUpMillis() > 0) ? this.timers.schedule(() -> {
			givenUp.set(System.nanoTime());
			worker.interrupt();
		}, step.giveUpMillis(), TimeUnit.MILLISECONDS) : null;
		LockHandle handle = null;
		String failure = null;
		try {
			handle = this.client.manager.acquire(request);
		}
		catch (LockException ex) {
			failure = ex.toString();
		}
		finally {
			if (interrupter != null) {
				interrupter.cancel(false);
			}
		}
		long completed = System.nanoTime();
		// an interrupt that came with the grant is not for the hold
		Thread.interrupted();
		record(id, step, invoked, completed, givenUp.get(), handle != null && handle.isAcquired(), failure);
		if (handle != null && handle.isAcquired()) {
			try {
				holdBlocking(id, step, handle);
			}
			finally {
				release(id, step, handle);
			}
		}
	}

	/** A release may fail while the server is out of reach; the quiescence check finds what it left. */
	private void release(int id, Acquire step, LockHandle handle) {
		release(this.history, this.client.index, id, "release of " + step, handle);
	}

	/**
	 * Release a handle, recording a release that failed (the quiescence check finds
	 * what it left).
	 * @param history where to record
	 * @param client the client
	 * @param id the step
	 * @param description what the release is, for reports
	 * @param handle the handle
	 */
	static void release(History history, int client, int id, String description, LockHandle handle) {
		long start = System.nanoTime();
		try {
			handle.close();
		}
		catch (LockException ex) {
			history.op(new History.Op(id, client, description, History.NO_DEADLINE, start, System.nanoTime(),
					Outcome.FAILED, -1, ex.toString()));
		}
	}

	private void holdBlocking(int id, Acquire step, LockHandle outer) {
		HeldLock held = new HeldLock(id, this.client, outer, step.keys(), step.family().permits, this.trusting);
		held.write(this.store);
		long half = TimeUnit.MILLISECONDS.toNanos(step.holdMillis() / 2);
		long end = System.nanoTime() + 2 * half;
		long middle = System.nanoTime() + half;
		boolean believes = held.holdUntil(middle);
		if (!believes && step.nesting() != Nesting.NONE) {
			// a careless caller goes on with its work as planned, lost lock or not: the nested lock comes halfway
			paceUntil(middle);
		}
		LockHandle inner = (step.nesting() != Nesting.NONE) ? nested(id, step, held, believes) : null;
		if (inner == null) {
			held.holdUntil(end);
			held.write(this.store);
			held.record(this.history);
			return;
		}
		// a nested lock taken after the outer one was lost may come late: it is held for half the hold at least
		long nestedEnd = believes ? end : Math.max(end, System.nanoTime() + half);
		try {
			HeldLock nested = new HeldLock(id, this.client, inner, step.keys(), step.family().permits,
					this.trusting);
			if (step.nesting() == Nesting.DOWNGRADE) {
				held.write(this.store);
				held.record(this.history);
				release(id, step, outer);
				nested.holdUntil(nestedEnd, held);
				nested.record(this.history);
				return;
			}
			nested.holdUntil(nestedEnd, held);
			nested.record(this.history);
		}
		finally {
			if (step.nesting() == Nesting.DOWNGRADE) {
				release(id, step, inner);
			}
			else {
				held.watchDuring(() -> release(id, step, inner));
			}
		}
		held.write(this.store);
		held.record(this.history);
	}

	// The schedule's pacing, as ScheduleRunner paces a step to its offset: a moment of the plan, not a wait for an event
	static void paceUntil(long moment) {
		for (long left = moment - System.nanoTime(); left > 0; left = moment - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

	// Taken whether or not the holder still believes it holds, as a careless caller would: once the outer lock
	// is lost, the engine must refuse the nested one or queue it as a lock of its own, never grant it beside
	// another holder. While the outer lock is held, before and after, a nested single try must succeed. Once it is lost, the careless
	// caller asks as for any lock, with the step's timeout: it has just seen the loss, most often with its connection
	// down, and a single try would fail at once, before its client has a new session to place the nested lock with.
	private LockHandle nested(int id, Acquire step, HeldLock outer, boolean outerHeld) {
		LockMode mode = (step.nesting() == Nesting.REENTER) ? step.mode() : LockMode.READ;
		long asked = System.nanoTime();
		String failure;
		try {
			LockHandle inner = this.client.manager.acquire(request(step, mode, outerHeld ? 0 : step.timeoutMillis()));
			if (inner.isAcquired()) {
				return inner;
			}
			failure = "not acquired";
		}
		catch (LockException ex) {
			failure = ex.toString();
		}
		// the outer lock may have gone in doubt meanwhile (a pause): then the engine rightly refuses
		if (outerHeld && outer.believes()) {
			this.history.op(new History.Op(id, this.client.index, step.nesting() + " inside " + step, 0, asked,
					System.nanoTime(), Outcome.FAILED, -1, failure));
		}
		return null;
	}

	private void acquireAsync(int id, Acquire step, LockRequest request, long invoked, AtomicLong givenUp)
			throws InterruptedException {
		CompletableFuture<AsyncLockHandle> future = this.client.async.acquire(request);
		ScheduledFuture<?> canceller = (step.giveUpMillis() > 0) ? this.timers.schedule(() -> {
			long now = System.nanoTime();
			if (future.cancel(true)) {
				givenUp.set(now);
			}
		}, step.giveUpMillis(), TimeUnit.MILLISECONDS) : null;
		AsyncLockHandle handle = null;
		String failure = null;
		try {
			handle = future.get(HANG.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (CancellationException ex) {
			failure = null;
		}
		catch (ExecutionException ex) {
			failure = ex.getCause().toString();
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			this.history.op(new History.Op(id, this.client.index, step.toString(), timeoutNanos(step), invoked,
					System.nanoTime(), Outcome.HUNG, givenUp.get(), null));
			return;
		}
		finally {
			if (canceller != null) {
				canceller.cancel(false);
			}
		}
		long completed = System.nanoTime();
		boolean acquired = handle != null && handle.isAcquired();
		record(id, step, invoked, completed, givenUp.get(), acquired, failure);
		if (acquired) {
			HeldLock held = new HeldLock(id, this.client, handle, step.keys(), step.family().permits, this.trusting);
			held.write(this.store);
			held.holdUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.holdMillis()));
			held.write(this.store);
			held.record(this.history);
			try {
				handle.release().get(HANG.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException | TimeoutException ex) {
				// a release that fails leaves the node to its session; the quiescence check sees it
				this.history.op(new History.Op(id, this.client.index, "release of " + step, History.NO_DEADLINE,
						completed, System.nanoTime(), Outcome.FAILED, -1, ex.toString()));
			}
		}
	}

	private void record(int id, Acquire step, long invoked, long completed, long givenUp, boolean acquired,
			String failure) {
		Outcome outcome;
		if (acquired) {
			outcome = Outcome.GRANTED;
		}
		else if (givenUp >= 0) {
			outcome = Outcome.GIVEN_UP;
		}
		else {
			outcome = (failure != null) ? Outcome.FAILED : Outcome.TIMED_OUT;
		}
		this.history.op(new History.Op(id, this.client.index, step.toString(), timeoutNanos(step), invoked,
				completed, outcome, givenUp, (outcome == Outcome.FAILED) ? failure : null));
		boolean exclusive = step.mode() == LockMode.MUTEX || step.mode() == LockMode.WRITE;
		if (Acquire.canHandOff(step.keys(), step.mode())) {
			String lockKey = step.family().lockName + "/" + step.keys().get(0);
			this.history.ask(new History.Ask(id, this.client.index, lockKey, step.mode(), step.localHandoff(), invoked,
					completed, outcome == Outcome.GRANTED));
			if (outcome == Outcome.GRANTED && exclusive) {
				this.history.grant(new History.Grant(id, lockKey, invoked, completed));
			}
		}
	}

	private static long timeoutNanos(Acquire step) {
		return TimeUnit.MILLISECONDS.toNanos(step.timeoutMillis());
	}

	static LockRequest request(Acquire step, LockMode mode, long timeoutMillis) {
		LockRequest.Builder builder = LockRequest.named(step.family().lockName)
			.keys(step.keys())
			.mode(mode)
			.timeout(Duration.ofMillis(timeoutMillis))
			.localHandoff(step.localHandoff());
		if (mode == LockMode.SEMAPHORE) {
			builder.permits(step.family().permits);
		}
		if (step.minHoldMillis() > 0) {
			builder.minHold(Duration.ofMillis(step.minHoldMillis()));
		}
		if (step.maxHoldMillis() > 0) {
			builder.maxHold(Duration.ofMillis(step.maxHoldMillis()));
		}
		return builder.build();
	}

}
