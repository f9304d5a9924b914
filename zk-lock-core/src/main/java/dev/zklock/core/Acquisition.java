package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockConnectionException;
import dev.zklock.LockDeadlockException;
import dev.zklock.LockException;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;
import dev.zklock.core.Nodes.LockNode;

/**
 * One acquisition of one or more keys of a lock, the same for blocking and
 * asynchronous callers: the keys one after the other in the order given (sorted
 * by the caller), all or nothing, within one timeout. In order:
 * <ol>
 * <li>{@link #start()}: a single try while ZooKeeper is unreachable fails at once;
 * otherwise the first key starts.</li>
 * <li>{@link #next()}: each key gets a {@link LockRegistry} entry and a
 * {@link NodeAttempt} ({@link QueueAttempt}, or a {@link LocalAttempt} with local
 * hand-off); {@link #keyDone} records its hold and starts the next key.</li>
 * <li>Once every key is taken, they are confirmed after a pause
 * ({@link PauseGuard}) and handed over together, or taken again when one was lost
 * meanwhile.</li>
 * <li>Short of every key, the wait ends ({@link #giveUp}, {@link #fail}): by
 * timeout, cancellation, shutdown, a single try that found a key taken, or a
 * failure.</li>
 * </ol>
 * The {@link #result()} completes with the holds, with {@code null} when the
 * timeout elapsed or a single try found a key taken, exceptionally with a
 * {@link LockException} on failure or a {@link CancellationException} once
 * {@link #cancel() cancelled}. Whenever it does not complete with holds, it
 * completes once every lock node the acquisition created is confirmed deleted, or
 * sooner as {@link CleanupWait} says: a deadline holds even when ZooKeeper stops
 * answering, and a node confirmed later is deleted then, never a hold.
 * <p>
 * The wait ends at the deadline: a blocking caller, parked until then, calls
 * {@link #timeOut()}; an asynchronous one has a timer do it ({@link #armTimer()}).
 * A single try ({@code timeout} 0) waits at most {@link #ANSWER_GRACE_NANOS} after
 * sending for ZooKeeper's first answer, at most {@link #SLOW_ANSWER_LIMIT_NANOS}
 * more once answered ({@link #COLD_ANSWER_LIMIT_NANOS} for the engine's first
 * call), and fails at once while ZooKeeper is unreachable
 * ({@link ZooKeeperReachability}); a timed wait that ends while it is unreachable
 * fails with a {@link LockException} that says so, rather than "not acquired".
 * <p>
 * A wait that lasts past the {@link DeadlockDetector}'s mark is marked once
 * ({@link #waitPassed()}): the blocking caller parks until the mark first, the
 * asynchronous timer fires there first. From then on each key it waits for behind
 * others (its attempt watches a node ahead) is published ({@link PublishedWait}),
 * and published again when its node changes (a re-queue, a session loss); a
 * local check on the timer catches both, without a ZooKeeper request. The record
 * goes when the key is granted or the wait ends in any way, in the background:
 * nobody waits for its delete. A wait shorter than the mark, a single try, an
 * attempt that never waits behind others (a slow first create), or a waiter
 * that holds nothing publishes nothing.
 */
final class Acquisition {

	private static final Logger logger = LoggerFactory.getLogger(Acquisition.class);

	private static final int MAX_GRANT_CONFIRMATIONS = 3;

	/** How long a single try waits for ZooKeeper's first answer: a round trip takes milliseconds. */
	static final long ANSWER_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

	/** How much longer a single try that ZooKeeper answered waits for the rest of its answers. */
	static final long SLOW_ANSWER_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The same for the engine's first call, which may wait for class loading and a cold server. */
	static final long COLD_ANSWER_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(5);

	private final int permits;

	private final byte @Nullable [] data;

	private final boolean localHandoff;

	// rounds of confirming a grant after a pause; bounded, should the detector's ticker stay silent
	private int grantConfirmations;

	private final Parts parts;

	private final PauseGuard pauseGuard;

	private final String name;

	private final LockMode mode;

	private final List<Target> targets;

	private final @Nullable Thread owner;

	private final long timeoutNanos;

	private final long deadline;

	private final long startNanos;

	// when after its start the wait is marked for deadlock detection, -1 for never
	private final long markNanos;

	// the mark has passed; read without the lock by the parked caller
	private volatile boolean passed;

	private final CompletableFuture<List<Hold>> result = new CompletableFuture<>();

	private final List<Hold> taken = new ArrayList<>();

	private final ReentrantLock lock = new ReentrantLock();

	private @Nullable NodeAttempt current;

	private @Nullable ScheduledFuture<?> timer;

	// for a single try, when its wait for ZooKeeper's answer ends: set once it is sent
	private volatile long answerBy;

	// under the lock
	private boolean finished;

	// the place of the current attempt's key among the targets
	private int currentIndex = -1;

	// under the lock: the wait of the key awaited now, once published
	private @Nullable PublishedWait published;

	// under the lock: the next local check of what is published, past the mark
	private @Nullable ScheduledFuture<?> publishCheck;

	// under the lock: the node of a wait that holds nothing, which the detector does not publish while it waits
	// with it (what its owner holds cannot change while it waits)
	private @Nullable String unpublishedNode;

	/**
	 * A key to lock.
	 *
	 * @param key the key, or {@code null} for a lock without keys
	 * @param path its lock path
	 * @param writerNode for a READ of the thread that holds WRITE on the same path,
	 * the path of that write node, at whose sequence the read node sorts; else
	 * {@code null}
	 * @param writerSession with a write node, its session; else 0
	 */
	record Target(@Nullable String key, String path, @Nullable String writerNode, long writerSession) {

	}

	/**
	 * What every acquisition of one engine works with, wired once by the engine.
	 *
	 * @param registry the registry of every hold and wait
	 * @param lossHandler keeps holds in line with the connection
	 * @param reachability whether ZooKeeper answers, and since when not
	 * @param timer the engine's timer, for deadlines
	 * @param releases how holds end, for the keys taken short of all of them
	 * @param attempts starts the attempt of one key
	 * @param basePath the base path, for failure advice
	 * @param deadlocks learns of the waits past their mark
	 */
	record Parts(LockRegistry registry, ConnectionLossHandler lossHandler, ZooKeeperReachability reachability,
			EngineTimer timer, HoldRelease releases, KeyAttempts attempts, String basePath, DeadlockDetector deadlocks) {

	}

	/**
	 * How the attempt of one key starts: a node in its queue, or a place in this
	 * process's queue with local hand-off.
	 */
	@FunctionalInterface
	interface KeyAttempts {

		/**
		 * The attempt for one key, not yet started.
		 * @param target the key
		 * @param mode the mode
		 * @param permits the permits, for SEMAPHORE
		 * @param data the owner data of its node
		 * @param entry its registry entry
		 * @param tryOnce whether it tries once
		 * @param localHandoff whether it waits in this process's queue
		 * @return the attempt
		 */
		NodeAttempt attempt(Target target, LockMode mode, int permits, byte @Nullable [] data, LockRegistry.Entry entry,
				boolean tryOnce, boolean localHandoff);

	}

	/**
	 * An acquisition, not yet started.
	 * @param parts what every acquisition of the engine works with
	 * @param pauseGuard confirms the grant after a pause
	 * @param data the owner data of its nodes
	 * @param name the lock name
	 * @param mode the mode
	 * @param permits the permits, for SEMAPHORE
	 * @param targets the keys, in the order to lock them
	 * @param owner the thread that will own the holds, or {@code null}
	 * @param timeoutNanos the longest wait, 0 to try once
	 * @param markNanos how long the wait lasts before it is published for deadlock
	 * detection, -1 for never: a value of the engine's settings, so that a wait
	 * shorter than the mark never reaches the {@link DeadlockDetector}
	 * @param localHandoff whether the one key waits in this process's queue
	 */
	Acquisition(Parts parts, PauseGuard pauseGuard, byte @Nullable [] data, String name, LockMode mode, int permits,
			List<Target> targets, @Nullable Thread owner, long timeoutNanos, long markNanos, boolean localHandoff) {
		this.parts = parts;
		this.pauseGuard = pauseGuard;
		this.name = name;
		this.mode = mode;
		this.targets = targets;
		this.owner = owner;
		this.timeoutNanos = timeoutNanos;
		this.startNanos = System.nanoTime();
		this.deadline = this.startNanos + timeoutNanos;
		this.markNanos = (timeoutNanos == 0) ? -1 : markNanos;
		this.permits = permits;
		this.localHandoff = localHandoff && targets.size() == 1 && mode != LockMode.SEMAPHORE;
		this.data = data;
	}

	void start() {
		if (this.timeoutNanos == 0 && this.parts.reachability().isUnreachable()) {
			// a single try cannot be answered now: Curator would retry it for its connection timeout
			giveUp(unreachable(), false);
			return;
		}
		next();
		// timed from the send: the first call in a JVM loads classes before anything goes out
		this.answerBy = System.nanoTime() + ANSWER_GRACE_NANOS;
	}

	private void next() {
		@Nullable Target target;
		@Nullable NodeAttempt attempt;
		LockRegistry.@Nullable Entry entry;
		List<Hold> holds = null;
		List<Hold> restart = null;
		CompletableFuture<Void> confirmation = null;
		this.lock.lock();
		try {
			if (this.finished) {
				return;
			}
			int index = this.taken.size();
			boolean allTaken = index == this.targets.size();
			confirmation = (allTaken && this.grantConfirmations < MAX_GRANT_CONFIRMATIONS)
					? this.pauseGuard.confirmGrant(this.taken) : null;
			if (confirmation != null) {
				// a pause was counted while waiting: ZooKeeper confirms the keys before they are handed over
				this.grantConfirmations++;
				target = null;
				attempt = null;
				entry = null;
			}
			else if (allTaken && deliverAll()) {
				finish();
				holds = List.copyOf(this.taken);
				target = null;
				attempt = null;
				entry = null;
			}
			else if (allTaken) {
				// a key taken earlier went with a session while a later one was awaited: start over
				restart = new ArrayList<>(this.taken);
				this.taken.clear();
				// no key is awaited until the first one starts again
				this.currentIndex = -1;
				target = null;
				attempt = null;
				entry = null;
			}
			else {
				target = this.targets.get(index);
				entry = this.parts.registry()
					.waiting(this.name, target.key(), target.path(), this.mode, this.owner,
							this.parts.lossHandler().lossEpoch(), this.pauseGuard.epoch());
				attempt = this.parts.attempts()
					.attempt(target, this.mode, this.permits, this.data, entry, this.timeoutNanos == 0,
							isLocal(target));
				this.current = attempt;
				this.currentIndex = index;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (holds != null) {
			this.result.complete(holds);
			return;
		}
		if (confirmation != null) {
			confirmation.whenComplete((ignored, ex) -> next());
			return;
		}
		if (restart != null) {
			logger.debug("Lock '{}': a key taken earlier was lost with its session; taking every key again", this.name);
			this.parts.releases().release(restart).whenComplete((ignored, ex) -> next());
			return;
		}
		if (target == null || attempt == null || entry == null) {
			// every branch above that leaves them unset has returned
			return;
		}
		Target key = target;
		NodeAttempt keyAttempt = attempt;
		LockRegistry.Entry keyEntry = entry;
		keyAttempt.start().whenComplete((node, ex) -> keyDone(key, keyEntry, keyAttempt, node, ex));
		// past the mark, each later key is told as soon as it is awaited
		publishIfPassed();
	}

	private boolean isLocal(Target target) {
		return this.localHandoff && target.writerNode() == null;
	}

	private void keyDone(Target target, LockRegistry.Entry entry, NodeAttempt attempt, @Nullable LockNode node,
			@Nullable Throwable ex) {
		if (attempt.isAnswered()) {
			this.parts.reachability().answered();
		}
		if (node == null) {
			this.parts.registry().remove(entry);
			if (ex != null) {
				fail(target, attempt, ex);
			}
			else {
				giveUp(null, true);
			}
			return;
		}
		this.parts.registry().held(entry, node);
		Hold hold = new Hold(entry, attempt, this.pauseGuard);
		boolean kept;
		this.lock.lock();
		try {
			kept = !this.finished;
			if (kept) {
				this.taken.add(hold);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (!kept) {
			// the wait ended while the node won: give it back
			this.parts.releases().release(List.of(hold));
			return;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '{}' key '{}' ({}), fencing token {}", this.name,
					LockPaths.abbreviate(target.key()), this.mode, node.czxid());
		}
		this.parts.lossHandler().acquired(entry);
		endPublished();
		next();
	}

	// Under the lock: hands every key to the caller, unless one was lost meanwhile
	private boolean deliverAll() {
		for (Hold hold : this.taken) {
			if (!this.parts.registry().deliver(hold.entry())) {
				return false;
			}
		}
		return true;
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

	private LockException unreachable() {
		return this.parts.reachability().failure(this.name, currentKey(), describeMode());
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
		return giveUp(new LockException("Lock '" + this.name + "' key '" + LockPaths.abbreviate(currentKey())
				+ "' was not acquired in " + describeMode() + " mode: the application is shutting down, so zk-lock "
				+ "ended the wait and removed its node. Run the call again on an instance that is not stopping"), true);
	}

	/**
	 * End the wait as the victim of a deadlock, as {@link #shutDown()} does: its
	 * nodes are deleted and the result then fails with the exception.
	 * @param failure the exception, with the report
	 * @return whether it was still pending; {@code false} once granted or ended
	 */
	boolean deadlocked(LockDeadlockException failure) {
		return giveUp(failure, true);
	}

	// Timeout, cancellation, shutdown, a deadlock's verdict or a key found taken by a single try; null completes with "not acquired".
	// Without waitForCleanup, the caller is answered at once and the nodes go in the background
	private boolean giveUp(@Nullable Exception failure, boolean waitForCleanup) {
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
		// sent first, in the session's order before the nodes below, and not waited for: a silent ZooKeeper must not
		// hold the caller past its deadline for a record that Curator deletes later or that goes with its session
		endPublished();
		List<CompletableFuture<?>> cleanups = new ArrayList<>();
		if (attempt != null) {
			attempt.abandon();
			cleanups.add(attempt.removed());
		}
		cleanups.add(this.parts.releases().release(holds));
		CleanupWait.then(this.parts.reachability(), this.parts.timer(), this.name, cleanups, waitForCleanup, () -> {
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

	private void fail(Target target, NodeAttempt attempt, Throwable ex) {
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
		// not waited for, as in giveUp
		endPublished();
		Throwable cause = LockEngine.unwrap(ex);
		LockException failure;
		if (cause instanceof LockException lockException) {
			failure = lockException;
		}
		else {
			String message = "Could not acquire lock '" + this.name + "' key '" + LockPaths.abbreviate(target.key())
					+ "' in " + describeMode() + " mode at " + target.path() + ": " + cause + "; "
					+ FailureAdvice.forFailure(cause, this.parts.basePath());
			// typed, so that a caller (an adapter) can tell an outage, worth a retry, from a refusal
			failure = FailureAdvice.isConnectionProblem(cause) ? new LockConnectionException(message, cause)
					: new LockException(message, cause);
		}
		CleanupWait.then(this.parts.reachability(), this.parts.timer(), this.name,
				List.of(attempt.removed(), this.parts.releases().release(holds)), true,
				() -> this.result.completeExceptionally(failure));
	}

	private String describeMode() {
		return Hold.describeMode(this.mode, this.owner != null);
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
		if (this.parts.reachability().isUnreachable()) {
			giveUp(unreachable(), false);
		}
		else if (this.timeoutNanos == 0 && (isAnswered() || !this.parts.reachability().hasAnswered())) {
			// ZooKeeper answers, only slowly, or this is the first call (a cold JVM, a cold server): the try ends with
			// its answers, at once if the connection is suspended, or at a limit: a connection that fell silent must
			// not hold the caller until Curator suspends it, two thirds of a session later
			logger.debug("Lock '{}': a single try waits on for ZooKeeper's answers", this.name);
			limitSlowAnswers(this.parts.reachability().hasAnswered() ? SLOW_ANSWER_LIMIT_NANOS : COLD_ANSWER_LIMIT_NANOS);
		}
		else {
			giveUp(null, this.timeoutNanos != 0);
		}
	}

	// On a closed engine timer the try ends now, failed as at shutdown: nothing would bound its wait for answers
	private void limitSlowAnswers(long limitNanos) {
		boolean refused = false;
		this.lock.lock();
		try {
			if (!this.finished) {
				this.timer = this.parts.timer().schedule(() -> giveUp(null, false), limitNanos, TimeUnit.NANOSECONDS);
				refused = this.timer == null;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (refused) {
			timerClosed();
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
	 * Have the engine's timer mark the wait, then end it at the deadline, for callers
	 * that do not wait themselves. On a closed engine timer the wait ends now, failed
	 * as at shutdown: nothing would end it at its deadline.
	 */
	void armTimer() {
		boolean refused;
		this.lock.lock();
		try {
			refused = !this.finished && this.timer == null && !scheduleTimer();
		}
		finally {
			this.lock.unlock();
		}
		if (refused) {
			timerClosed();
		}
	}

	// Under the lock: the one timer, at the mark when it comes before the deadline, else at the deadline; false when
	// the engine's timer is closed and took neither
	private boolean scheduleTimer() {
		long now = System.nanoTime();
		long toMark = nanosUntilMark(now);
		if (toMark != Long.MAX_VALUE && (!isTimed() || toMark < deadline() - now)) {
			this.timer = this.parts.timer().schedule(this::markReached, toMark, TimeUnit.NANOSECONDS);
		}
		else if (isTimed()) {
			this.timer = this.parts.timer().schedule(this::timeOut, deadline() - now, TimeUnit.NANOSECONDS);
		}
		else {
			return true;
		}
		return this.timer != null;
	}

	// The engine closed under a wait its close did not end: an untimed wait would outlast its timeout, maybe forever,
	// and a single try would wait for ZooKeeper's answers without a limit
	private void timerClosed() {
		logger.debug("Lock '{}' key '{}': the engine's timer is closed, so the wait ends now", this.name,
				LockPaths.abbreviate(currentKey()));
		shutDown();
	}

	private void markReached() {
		waitPassed();
		boolean refused;
		this.lock.lock();
		try {
			refused = !this.finished && !scheduleTimer();
		}
		finally {
			this.lock.unlock();
		}
		if (refused) {
			timerClosed();
		}
	}

	/**
	 * How long until the wait is marked for deadlock detection.
	 * @param now {@link System#nanoTime()}
	 * @return the nanoseconds, at most 0 once due, {@link Long#MAX_VALUE} when no mark
	 * is to come: detection off, a single try, or marked already
	 */
	long nanosUntilMark(long now) {
		return (this.markNanos < 0 || this.passed) ? Long.MAX_VALUE : this.startNanos + this.markNanos - now;
	}

	/**
	 * The wait has lasted past its mark: from now on each key it waits for is told to
	 * the deadlock detector, the one awaited now first. Changes nothing else.
	 */
	void waitPassed() {
		this.lock.lock();
		try {
			if (this.passed || this.finished) {
				return;
			}
			this.passed = true;
		}
		finally {
			this.lock.unlock();
		}
		publishIfPassed();
	}

	// Publish the key awaited now once it waits behind others past the mark, again when its node changed
	private void publishIfPassed() {
		NodeAttempt attempt;
		this.lock.lock();
		try {
			attempt = this.current;
			if (!this.passed || this.finished || attempt == null || this.currentIndex != this.taken.size()) {
				// its key was taken and the next one is not awaited yet: next() tells of that one
				return;
			}
		}
		finally {
			this.lock.unlock();
		}
		// outside the lock: the attempt answers under a lock of its own
		String node = attempt.isWatching() ? attempt.waitingNode() : null;
		PublishedWait stale = null;
		this.lock.lock();
		try {
			if (this.finished || attempt != this.current || this.currentIndex != this.taken.size()) {
				return;
			}
			PublishedWait now = this.published;
			if (node != null && !node.equals(this.unpublishedNode) && (now == null || !now.standsFor(node))) {
				stale = now;
				Target target = this.targets.get(this.currentIndex);
				long elapsed = System.nanoTime() - this.startNanos;
				this.published = this.parts.deadlocks().publish(new DeadlockDetector.Waiting(this.name, target.key(),
						target.path(), this.mode, this.permits, node, isLocal(target), this.owner,
						List.copyOf(this.taken), Instant.now().minusNanos(elapsed)), this::deadlocked);
				this.unpublishedNode = (this.published == null) ? node : null;
			}
			if (this.publishCheck == null) {
				this.publishCheck = this.parts.timer().schedule(this::checkPublished, checkNanos(),
						TimeUnit.NANOSECONDS);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (stale != null) {
			stale.end();
		}
	}

	private void checkPublished() {
		this.lock.lock();
		try {
			this.publishCheck = null;
		}
		finally {
			this.lock.unlock();
		}
		publishIfPassed();
	}

	// As often as the mark, at most each second: a re-queue is published again within that
	private long checkNanos() {
		return Math.min(this.markNanos, TimeUnit.SECONDS.toNanos(1));
	}

	// The key's wait ended (granted, or the acquisition ended): its record goes, in the background
	private void endPublished() {
		PublishedWait ended;
		this.lock.lock();
		try {
			ended = this.published;
			this.published = null;
		}
		finally {
			this.lock.unlock();
		}
		if (ended != null) {
			ended.end();
		}
	}

	private void finish() {
		this.finished = true;
		if (this.timer != null) {
			this.timer.cancel(false);
		}
		if (this.publishCheck != null) {
			this.publishCheck.cancel(false);
		}
	}

}
