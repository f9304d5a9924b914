package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.annotation.LockMode;

/**
 * One acquisition of one or more keys of a lock, the same for blocking and
 * asynchronous callers: the keys one after the other in the order given (sorted
 * by the caller), all or nothing, within one timeout. Each key is a
 * {@link NodeAttempt} with a {@link LockRegistry} entry; once every key is taken,
 * they are confirmed after a pause ({@link PauseGuard}) and handed over together,
 * or taken again when one was lost meanwhile. Its wait, and how it ends short of
 * every key, is {@link AcquisitionWait}'s.
 */
final class Acquisition extends AcquisitionWait {

	// lock lifecycle is logged under the manager users know and configure
	private static final Logger logger = LoggerFactory.getLogger(CuratorLockManager.class);

	private static final int MAX_GRANT_CONFIRMATIONS = 3;

	private final int permits;

	private final byte @Nullable [] data;

	private final boolean localHandoff;

	// rounds of confirming a grant after a pause; bounded, should the detector's ticker stay silent
	private int grantConfirmations;

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

	Acquisition(LockEngine engine, String name, LockMode mode, int permits, List<Target> targets, @Nullable Thread owner,
			long timeoutNanos, boolean localHandoff) {
		super(engine, name, mode, targets, owner, timeoutNanos);
		this.permits = permits;
		this.localHandoff = localHandoff && targets.size() == 1 && mode != LockMode.SEMAPHORE;
		this.data = engine.ownerData().forCurrentThread();
	}

	void start() {
		if (this.timeoutNanos == 0 && this.engine.reachability().isUnreachable()) {
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
		@Nullable RegistryEntry entry;
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
					? this.engine.pauseGuard().confirmGrant(this.taken) : null;
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
				target = null;
				attempt = null;
				entry = null;
			}
			else {
				target = this.targets.get(index);
				entry = this.engine.registry()
					.waiting(this.name, target.key(), target.path(), this.mode, this.owner,
							this.engine.lossHandler().lossEpoch(), this.engine.pauseGuard().epoch());
				attempt = (this.localHandoff && target.writerNode() == null)
						? this.engine.cohorts().attempt(target, this.mode, entry, this.timeoutNanos == 0)
						: this.engine.newAttempt(target, this.mode, this.permits, this.data, this.timeoutNanos == 0);
				this.current = attempt;
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
			this.engine.release(restart).whenComplete((ignored, ex) -> next());
			return;
		}
		if (target == null || attempt == null || entry == null) {
			// every branch above that leaves them unset has returned
			return;
		}
		Target key = target;
		NodeAttempt keyAttempt = attempt;
		RegistryEntry keyEntry = entry;
		keyAttempt.start().whenComplete((node, ex) -> keyDone(key, keyEntry, keyAttempt, node, ex));
	}

	private void keyDone(Target target, RegistryEntry entry, NodeAttempt attempt, @Nullable LockNode node,
			@Nullable Throwable ex) {
		if (attempt.isAnswered()) {
			this.engine.reachability().answered();
		}
		if (node == null) {
			this.engine.registry().remove(entry);
			if (ex != null) {
				fail(target, attempt, ex);
			}
			else {
				giveUp(null, true);
			}
			return;
		}
		this.engine.registry().held(entry, node);
		Hold hold = new Hold(entry, attempt, this.engine.pauseGuard());
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
			this.engine.release(List.of(hold));
			return;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '{}' key '{}' ({}), fencing token {}", this.name,
					KeyEncoder.abbreviate(target.key()), this.mode, node.czxid());
		}
		this.engine.lossHandler().acquired(entry);
		next();
	}

	// Under the lock: hands every key to the caller, unless one was lost meanwhile
	private boolean deliverAll() {
		for (Hold hold : this.taken) {
			if (!this.engine.registry().deliver(hold.entry())) {
				return false;
			}
		}
		return true;
	}

}
