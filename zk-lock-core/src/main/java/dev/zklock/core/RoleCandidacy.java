package dev.zklock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LockRequest;

/**
 * This instance's place in the queue of one role: an asynchronous MUTEX
 * acquisition without a deadline while it waits, the {@link LeadershipTerm} while
 * it leads. Every change happens under the candidacy's lock and bumps a
 * generation, so a result that arrives for an abandoned attempt only releases
 * what it got. While any cause to stand aside holds (readiness, a health group),
 * the candidacy stays out of the queue.
 */
final class RoleCandidacy {

	private static final Logger logger = LoggerFactory.getLogger(RoleCandidacy.class);

	// the engine treats a wait this long as endless
	private static final Duration ENDLESS = Duration.ofNanos(Long.MAX_VALUE);

	private static final Duration AWAIT_POLL = Duration.ofMillis(50);

	private final String role;

	private final LockRequest request;

	private final AsyncLockManager locks;

	private final Listener listener;

	private final boolean interruptOnLoss;

	// not a monitor: a virtual thread that waits for leadership must not pin its carrier
	private final ReentrantLock lock = new ReentrantLock();

	private final Condition grantedSignal = this.lock.newCondition();

	// why this instance stays out of the queue for now; empty while it may compete
	private final Set<String> asideCauses = new LinkedHashSet<>();

	private long generation;

	private @Nullable CompletableFuture<AsyncLockHandle> pending;

	// read without the lock, so that a @Leader call never waits for a listener of this role
	private volatile @Nullable LeadershipTerm term;

	private boolean active;

	RoleCandidacy(String role, AsyncLockManager locks, Listener listener, boolean interruptOnLoss) {
		this.role = role;
		// a role is held as long as the instance leads: zk-lock.max-hold does not cap it
		this.request = LockRequest.named(RoleElection.LOCK_NAME)
			.keys(role)
			.timeout(ENDLESS)
			.maxHold(ENDLESS)
			.build();
		this.locks = locks;
		this.listener = listener;
		this.interruptOnLoss = interruptOnLoss;
	}

	String role() {
		return this.role;
	}

	/**
	 * Join the queue, unless already in it.
	 */
	void join() {
		this.lock.lock();
		try {
			this.active = true;
			rejoin();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Join the queue again after a loss, if still a candidate, not standing aside
	 * and not in it.
	 */
	void rejoin() {
		this.lock.lock();
		try {
			if (this.active && this.asideCauses.isEmpty() && this.pending == null && this.term == null) {
				startAttempt();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stay out of the queue while the cause holds: give the leadership up (the node
	 * goes once the running {@code @Leader} methods have returned) or leave the
	 * queue.
	 * @param cause why, as it is logged; {@link #standAgain(String)} ends it
	 */
	void standAside(String cause) {
		this.lock.lock();
		try {
			boolean competing = this.asideCauses.isEmpty();
			if (!this.asideCauses.add(cause) || !competing) {
				return;
			}
			if (this.pending != null || this.term != null) {
				logger.info("Standing aside from role '{}' (lock '{}' key '{}'): {}", this.role,
						RoleElection.LOCK_NAME, this.role, cause);
			}
			drop(LeadershipRevocationReason.YIELDED);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A cause to stand aside is over: join again, at the back, once none holds.
	 * @param cause a cause given to {@link #standAside(String)}
	 */
	void standAgain(String cause) {
		this.lock.lock();
		try {
			if (this.asideCauses.remove(cause) && this.asideCauses.isEmpty() && this.active) {
				logger.info("Joining the queue of role '{}' (lock '{}' key '{}'), after standing aside for: {}", this.role,
						RoleElection.LOCK_NAME, this.role, cause);
				rejoin();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Why this instance stands aside from the role.
	 * @return the causes, empty while it competes
	 */
	Set<String> asideCauses() {
		this.lock.lock();
		try {
			return Set.copyOf(this.asideCauses);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Leave the queue for good, giving up the leadership if held.
	 * @param reason the revocation reason
	 * @return completes once the node is deleted
	 */
	CompletableFuture<Void> leave(LeadershipRevocationReason reason) {
		this.lock.lock();
		try {
			this.active = false;
			return drop(reason);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Leave the queue after a connection problem, staying a candidate: the
	 * election joins again once the connection is back.
	 * @param reason the revocation reason
	 * @return completes once the node is deleted
	 */
	CompletableFuture<Void> drop(LeadershipRevocationReason reason) {
		this.lock.lock();
		try {
			this.generation++;
			CompletableFuture<AsyncLockHandle> waiting = this.pending;
			this.pending = null;
			if (waiting != null) {
				logger.debug("Leaving the queue of role '{}' (lock '{}' key '{}'): {}", this.role,
						RoleElection.LOCK_NAME, this.role, reason);
				// deletes the node of the wait, or releases a lock acquired at this moment
				waiting.cancel(false);
			}
			LeadershipTerm ended = this.term;
			this.term = null;
			if (ended == null || !ended.end(reason, this.interruptOnLoss && isLoss(reason))) {
				return CompletableFuture.completedFuture(null);
			}
			this.listener.revoked(ended, reason);
			if (reason == LeadershipRevocationReason.YIELDED) {
				// told through the revocation and isHeld(); the next leader starts once the running methods return
				return ended.whenIdle().thenCompose((idle) -> ended.handle().release());
			}
			return ended.handle().release();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The engine lost the node of a leadership.
	 * @param fencingToken the token of the lost node
	 * @param reason the revocation reason
	 * @return whether it was this candidacy's current leadership
	 */
	boolean lost(long fencingToken, LeadershipRevocationReason reason) {
		this.lock.lock();
		try {
			LeadershipTerm current = this.term;
			if (current == null || current.fencingToken() != fencingToken) {
				return false;
			}
			drop(reason);
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Give the leadership up and join again at the back.
	 * @return whether this instance led the role
	 */
	boolean yieldLeadership() {
		this.lock.lock();
		try {
			if (this.term == null) {
				return false;
			}
			drop(LeadershipRevocationReason.YIELDED);
			rejoin();
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The current leadership, held for sure or not.
	 * @return the term, or {@code null} when this instance does not lead
	 */
	@Nullable LeadershipTerm term() {
		return this.term;
	}

	/**
	 * Whether this instance leads the role for sure.
	 * @return whether it leads
	 */
	boolean isLeader() {
		LeadershipTerm current = term();
		return current != null && current.isHeld();
	}

	/**
	 * Wait until this instance leads the role for sure.
	 * @param timeout the longest wait
	 * @return whether it leads
	 * @throws InterruptedException when interrupted
	 */
	boolean await(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		this.lock.lockInterruptibly();
		try {
			while (!isLeader()) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				// a term's doubt clears without a signal, so look again now and then
				this.grantedSignal.await(Math.min(AWAIT_POLL.toNanos(), left), TimeUnit.NANOSECONDS);
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void startAttempt() {
		long attempt = ++this.generation;
		logger.debug("Joining the queue of role '{}' (lock '{}' key '{}'), attempt {}", this.role,
				RoleElection.LOCK_NAME, this.role, attempt);
		CompletableFuture<AsyncLockHandle> result = this.locks.acquire(this.request);
		this.pending = result;
		result.whenComplete((handle, ex) -> completed(attempt, handle, ex));
	}

	private void completed(long attempt, @Nullable AsyncLockHandle handle, @Nullable Throwable ex) {
		this.lock.lock();
		try {
			if (attempt != this.generation || !this.active) {
				if (handle != null) {
					handle.release();
				}
				return;
			}
			this.pending = null;
			if (ex != null || handle == null || !handle.isAcquired()) {
				this.listener.joinFailed(this, ex);
				return;
			}
			LeadershipTerm granted = new LeadershipTerm(this.role, handle, Instant.now());
			this.term = granted;
			this.listener.granted(granted);
			this.grantedSignal.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	// unlike a lock in doubt, a leadership suspended under the SUSPENDED policy is over: its node goes
	private static boolean isLoss(LeadershipRevocationReason reason) {
		return reason != LeadershipRevocationReason.YIELDED && reason != LeadershipRevocationReason.SHUTDOWN;
	}

	/**
	 * Told about grants, revocations and failed joins, under the candidacy's
	 * lock, so in order.
	 */
	interface Listener {

		/**
		 * This instance leads the role.
		 * @param term the new leadership
		 */
		void granted(LeadershipTerm term);

		/**
		 * This instance no longer leads the role.
		 * @param term the leadership that ended
		 * @param reason why
		 */
		void revoked(LeadershipTerm term, LeadershipRevocationReason reason);

		/**
		 * Joining the queue failed; the candidacy waits to be told to join again.
		 * @param candidacy the candidacy
		 * @param failure what failed, or {@code null} when nothing was acquired
		 */
		void joinFailed(RoleCandidacy candidacy, @Nullable Throwable failure);

	}

}
