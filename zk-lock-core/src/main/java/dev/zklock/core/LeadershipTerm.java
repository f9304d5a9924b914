package dev.zklock.core;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LockContext;
import dev.zklock.LockLostException;
import dev.zklock.annotation.LockMode;

/**
 * One uninterrupted leadership of a role by this instance: from the grant until
 * the revocation. It is the {@link LockContext} of the {@code @Leader} methods that
 * run during it; its fencing token stays readable after the end, so that late
 * writes still carry it and are rejected. The Spring layer's {@code @Leader}
 * advice {@linkplain #enter() enters} it around each call, so that a yield deletes
 * the node only once those calls have returned.
 */
public final class LeadershipTerm implements LockContext {

	private final String role;

	private final AsyncLockHandle handle;

	private final long fencingToken;

	private final String nodePath;

	private final Instant since;

	// not a monitor: @Leader methods may run on virtual threads
	private final ReentrantLock lock = new ReentrantLock();

	// the threads running @Leader methods for this term, with how deep (a method may call another)
	private final Map<Thread, Integer> runners = new HashMap<>();

	// completes once the term has ended and no @Leader method runs for it
	private final CompletableFuture<Void> idle = new CompletableFuture<>();

	private volatile @Nullable LeadershipRevocationReason endReason;

	LeadershipTerm(String role, AsyncLockHandle handle, Instant since) {
		this.role = role;
		this.handle = handle;
		this.fencingToken = handle.fencingToken();
		this.nodePath = handle.nodePath();
		this.since = since;
	}

	/**
	 * The role.
	 * @return the role name
	 */
	public String role() {
		return this.role;
	}

	AsyncLockHandle handle() {
		return this.handle;
	}

	/**
	 * When this instance began to lead, as it saw the grant.
	 * @return the moment of the grant
	 */
	public Instant since() {
		return this.since;
	}

	/**
	 * A {@code @Leader} method starts running on the current thread, unless the term
	 * has ended.
	 * @return whether it may run: false once the term has ended
	 */
	public boolean enter() {
		this.lock.lock();
		try {
			if (this.endReason != null) {
				return false;
			}
			this.runners.merge(Thread.currentThread(), 1, Integer::sum);
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A {@code @Leader} method that {@link #enter() entered} returns.
	 */
	public void exit() {
		this.lock.lock();
		try {
			Thread current = Thread.currentThread();
			Integer depth = this.runners.get(current);
			if (depth != null && depth > 1) {
				this.runners.put(current, depth - 1);
			}
			else {
				this.runners.remove(current);
			}
			if (this.endReason != null && this.runners.isEmpty()) {
				this.idle.complete(null);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Completes once the term has ended and the {@code @Leader} methods that ran for
	 * it have returned, so that a yield deletes the node only then and the next
	 * leader's runs never overlap this one's.
	 * @return the future, completed on the thread of the last method to return
	 */
	CompletableFuture<Void> whenIdle() {
		return this.idle;
	}

	/**
	 * End the term, once.
	 * @param reason why it ends
	 * @param interrupt whether to interrupt the threads running {@code @Leader}
	 * methods for it
	 * @return whether it was still going
	 */
	boolean end(LeadershipRevocationReason reason, boolean interrupt) {
		this.lock.lock();
		try {
			if (this.endReason != null) {
				return false;
			}
			this.endReason = reason;
			if (interrupt) {
				this.runners.keySet().forEach(Thread::interrupt);
			}
			if (this.runners.isEmpty()) {
				this.idle.complete(null);
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Whether the term has ended; unlike {@link #isHeld()}, not while it is only in
	 * doubt.
	 * @return whether it ended
	 */
	boolean isEnded() {
		return this.endReason != null;
	}

	@Override
	public String name() {
		return this.role;
	}

	@Override
	public List<String> keys() {
		return List.of();
	}

	@Override
	public LockMode mode() {
		return LockMode.MUTEX;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	@Override
	public long fencingToken(@Nullable String key) {
		checkKey(key);
		return this.fencingToken;
	}

	@Override
	public String nodePath() {
		return this.nodePath;
	}

	@Override
	public String nodePath(@Nullable String key) {
		checkKey(key);
		return this.nodePath;
	}

	@Override
	public boolean isHeld() {
		return this.endReason == null && this.handle.isHeld();
	}

	@Override
	public void assertHeld() {
		LeadershipRevocationReason reason = this.endReason;
		String leadership = "Leadership of role '" + this.role + "' (fencing token " + this.fencingToken + ")";
		if (reason != null) {
			throw new LockLostException(leadership + " ended (" + reason + "): another instance may lead now. Abandon "
					+ "the work; a resource that checks fencing tokens rejects this leader's late writes", this.role,
					null);
		}
		if (!this.handle.isHeld()) {
			throw new LockLostException(leadership + " is in doubt: the ZooKeeper connection is suspended or this "
					+ "process was paused, so another instance may lead. Do not write what the role protects now",
					this.role, null);
		}
	}

	private void checkKey(@Nullable String key) {
		if (key != null) {
			throw new IllegalArgumentException(
					"Leadership of role '" + this.role + "' has no keys; pass null, or use fencingToken()");
		}
	}

	@Override
	public String toString() {
		return "LeadershipTerm[role=" + this.role + ", fencingToken=" + this.fencingToken + ", since=" + this.since
				+ "]";
	}

}
