package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.annotation.LockMode;

/**
 * The wait of an {@link Acquisition}: its result, its deadline, and how it ends
 * short of holding every key. The {@link #result()} completes with the holds, with
 * {@code null} when the timeout elapsed or a single try found a key taken,
 * exceptionally with a {@link LockException} on failure or a
 * {@link CancellationException} once {@link #cancel() cancelled}. Whenever it does
 * not complete with holds, it completes once every node the acquisition created is
 * confirmed deleted, or sooner as {@link CleanupWait} says: a deadline holds even
 * when ZooKeeper stops answering, and a node confirmed later is deleted then,
 * never a hold.
 * <p>
 * The wait ends at the deadline: a blocking caller, parked until then, calls
 * {@link #timeOut()}; an asynchronous one has a timer do it ({@link #armTimer()}).
 * A single try ({@code timeout} 0) waits at most {@link #ANSWER_GRACE_NANOS} after
 * sending for ZooKeeper's first answer, at most {@link #SLOW_ANSWER_LIMIT_NANOS} more
 * once answered ({@link #COLD_ANSWER_LIMIT_NANOS} for the engine's first call), and
 * fails at once while ZooKeeper is unreachable ({@link ZooKeeperReachability}); a timed wait that ends
 * while it is unreachable fails with a {@link LockException} that says so, rather than "not acquired".
 */
abstract class AcquisitionWait {

	// lock lifecycle is logged under the manager users know and configure
	private static final Logger logger = LoggerFactory.getLogger(CuratorLockManager.class);

	/** How long a single try waits for ZooKeeper's first answer: a round trip takes milliseconds. */
	static final long ANSWER_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

	/** How much longer a single try that ZooKeeper answered waits for the rest of its answers. */
	static final long SLOW_ANSWER_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The same for the engine's first call, which may wait for class loading and a cold server. */
	static final long COLD_ANSWER_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(5);

	final LockEngine engine;

	final String name;

	final LockMode mode;

	final List<Acquisition.Target> targets;

	final @Nullable Thread owner;

	final long timeoutNanos;

	private final long deadline;

	final CompletableFuture<List<Hold>> result = new CompletableFuture<>();

	final List<Hold> taken = new ArrayList<>();

	final ReentrantLock lock = new ReentrantLock();

	@Nullable NodeAttempt current;

	private @Nullable ScheduledFuture<?> timer;

	// for a single try, when its wait for ZooKeeper's answer ends: set once it is sent
	volatile long answerBy;

	// under the lock
	boolean finished;

	AcquisitionWait(LockEngine engine, String name, LockMode mode, List<Acquisition.Target> targets,
			@Nullable Thread owner, long timeoutNanos) {
		this.engine = engine;
		this.name = name;
		this.mode = mode;
		this.targets = targets;
		this.owner = owner;
		this.timeoutNanos = timeoutNanos;
		this.deadline = System.nanoTime() + timeoutNanos;
	}

	CompletableFuture<List<Hold>> result() {
		return this.result;
	}

	/**
	 * Whether the key being locked waits for a watch.
	 */
	boolean isWatching() {
		NodeAttempt attempt = this.current;
		return attempt != null && attempt.isWatching();
	}

	/**
	 * The key being locked now, for messages.
	 */
	@Nullable String currentKey() {
		this.lock.lock();
		try {
			return this.targets.get(Math.min(this.taken.size(), this.targets.size() - 1)).key();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * ZooKeeper became unreachable: a single try under way ends now; a timed wait
	 * goes on until its deadline, in case the connection comes back.
	 */
	void connectionSuspended() {
		if (this.timeoutNanos == 0) {
			giveUp(unreachable(), false);
		}
	}

	final LockException unreachable() {
		return this.engine.reachability().failure(this.name, currentKey(), describeMode());
	}

	/**
	 * Abandon the acquisition unless it holds every key already: its nodes are
	 * deleted and the result then completes with a {@link CancellationException}.
	 * @return whether it was still pending
	 */
	boolean cancel() {
		return giveUp(new CancellationException("Acquisition of lock '" + this.name + "' cancelled"), true);
	}

	/**
	 * Abandon the acquisition because the application shuts down, as
	 * {@link #cancel()} does, but fail it with a {@link LockException} that says so.
	 * @return whether it was still pending
	 */
	boolean shutDown() {
		return giveUp(new LockException("Lock '" + this.name + "' key '" + KeyEncoder.abbreviate(currentKey())
				+ "' was not acquired in " + describeMode() + " mode: the application is shutting down, so zk-lock "
				+ "ended the wait and removed its node. Run the call again on an instance that is not stopping"), true);
	}

	// Timeout, cancellation, shutdown or a key found taken by a single try; null completes with "not acquired".
	// Without waitForCleanup, the caller is answered at once and the nodes go in the background
	final boolean giveUp(@Nullable Exception failure, boolean waitForCleanup) {
		List<Hold> holds;
		NodeAttempt attempt;
		this.lock.lock();
		try {
			if (this.finished) {
				return false;
			}
			finish();
			holds = new ArrayList<>(this.taken);
			attempt = this.current;
		}
		finally {
			this.lock.unlock();
		}
		List<CompletableFuture<?>> cleanups = new ArrayList<>();
		if (attempt != null) {
			attempt.abandon();
			cleanups.add(attempt.removed());
		}
		cleanups.add(this.engine.release(holds));
		CleanupWait.then(this.engine, this.name, cleanups, waitForCleanup, () -> {
			if (failure != null) {
				this.result.completeExceptionally(failure);
			}
			else {
				logger.debug("Lock '{}' not acquired within the timeout", this.name);
				this.result.complete(null);
			}
		});
		return true;
	}

	final void fail(Acquisition.Target target, NodeAttempt attempt, Throwable ex) {
		List<Hold> holds;
		this.lock.lock();
		try {
			if (this.finished) {
				return;
			}
			finish();
			holds = new ArrayList<>(this.taken);
		}
		finally {
			this.lock.unlock();
		}
		Throwable cause = LockEngine.unwrap(ex);
		LockException failure = (cause instanceof LockException lockException) ? lockException
				: new LockException("Could not acquire lock '" + this.name + "' key '"
						+ KeyEncoder.abbreviate(target.key()) + "' in " + describeMode() + " mode at " + target.path()
						+ ": " + cause + "; " + this.engine.advice(cause), cause);
		CleanupWait.then(this.engine, this.name, List.of(attempt.removed(), this.engine.release(holds)), true,
				() -> this.result.completeExceptionally(failure));
	}

	private String describeMode() {
		return (this.owner != null) ? this.mode.toString() : "asynchronous " + this.mode;
	}

	/**
	 * When the wait ends, on {@link System#nanoTime()}'s clock: the deadline, or for
	 * a single try the end of its wait for ZooKeeper's answer.
	 */
	long deadline() {
		return (this.timeoutNanos == 0) ? this.answerBy : this.deadline;
	}

	/**
	 * Whether the wait has an end: any but an endless wait.
	 */
	boolean isTimed() {
		return this.timeoutNanos < LockEngine.MAX_WAIT_NANOS;
	}

	/**
	 * End the wait unless every key is held: the result completes with {@code null}
	 * once the nodes are gone, or with the failure that says ZooKeeper is
	 * unreachable. A single try that ZooKeeper did not answer in time does not wait
	 * for its nodes either.
	 */
	void timeOut() {
		if (this.engine.reachability().isUnreachable()) {
			giveUp(unreachable(), false);
		}
		else if (this.timeoutNanos == 0 && (isAnswered() || !this.engine.reachability().hasAnswered())) {
			// ZooKeeper answers, only slowly, or this is the first call (a cold JVM, a cold server): the try ends with
			// its answers, at once if the connection is suspended, or at a limit: a connection that fell silent must
			// not hold the caller until Curator suspends it, two thirds of a session later
			logger.debug("Lock '{}': a single try waits on for ZooKeeper's answers", this.name);
			limitSlowAnswers(this.engine.reachability().hasAnswered() ? SLOW_ANSWER_LIMIT_NANOS : COLD_ANSWER_LIMIT_NANOS);
		}
		else {
			giveUp(null, this.timeoutNanos != 0);
		}
	}

	private void limitSlowAnswers(long limitNanos) {
		this.lock.lock();
		try {
			if (!this.finished) {
				this.timer = this.engine.schedule(() -> giveUp(null, false), limitNanos, TimeUnit.NANOSECONDS);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private boolean isAnswered() {
		this.lock.lock();
		try {
			NodeAttempt attempt = this.current;
			return !this.taken.isEmpty() || (attempt != null && attempt.isAnswered());
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Have the engine's timer end the wait at the deadline, for callers that do not
	 * wait themselves.
	 */
	void armTimer() {
		if (!isTimed()) {
			return;
		}
		this.lock.lock();
		try {
			if (!this.finished && this.timer == null) {
				this.timer = this.engine.schedule(this::timeOut, deadline() - System.nanoTime(),
						TimeUnit.NANOSECONDS);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	final void finish() {
		this.finished = true;
		if (this.timer != null) {
			this.timer.cancel(false);
		}
	}

}