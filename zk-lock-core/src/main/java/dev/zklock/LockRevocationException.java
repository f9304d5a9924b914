package dev.zklock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock could not be revoked. Nothing was removed: a revocation
 * deletes every holder it names in one ZooKeeper transaction, or none.
 */
public class LockRevocationException extends LockException {

	private static final long serialVersionUID = 1L;

	private final Problem problem;

	/**
	 * Create a new instance.
	 * @param problem what went wrong
	 * @param message the detail message
	 * @param cause the cause, or {@code null}
	 */
	public LockRevocationException(Problem problem, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.problem = problem;
	}

	/**
	 * What went wrong.
	 * @return the problem
	 */
	public Problem getProblem() {
		return this.problem;
	}

	/**
	 * Why a revocation removed nothing.
	 */
	public enum Problem {

		/** No lock of that name exists in ZooKeeper. */
		LOCK_NOT_FOUND,

		/** The lock has no such key. */
		KEY_NOT_FOUND,

		/** The key exists but nobody holds it. */
		NO_HOLDER,

		/** The node named is not a current holder of the key. */
		NODE_NOT_FOUND,

		/** The holders changed while revoking (released or replaced): nothing was removed. */
		CHANGED,

		/** ZooKeeper is not reachable, or failed: nothing was removed. */
		UNAVAILABLE

	}

}
