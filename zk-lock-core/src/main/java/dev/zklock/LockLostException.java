package dev.zklock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock that was held can no longer be trusted: the ZooKeeper
 * connection was suspended or the session was lost while the lock was held.
 */
public class LockLostException extends LockException {

	private static final long serialVersionUID = 1L;

	private final @Nullable String lockName;

	private final @Nullable String key;

	/**
	 * Create a new instance.
	 * @param message the detail message
	 */
	public LockLostException(String message) {
		this(message, null, null);
	}

	/**
	 * Create a new instance for a lock and key.
	 * @param message the detail message
	 * @param lockName the name of the lock
	 * @param key the key that is no longer held, or {@code null} for a lock without
	 * keys
	 */
	public LockLostException(String message, @Nullable String lockName, @Nullable String key) {
		super(message);
		this.lockName = lockName;
		this.key = key;
	}

	/**
	 * The name of the lock that is no longer held.
	 * @return the lock name, or {@code null} when not known
	 */
	public @Nullable String getLockName() {
		return this.lockName;
	}

	/**
	 * The key that is no longer held.
	 * @return the key, or {@code null} for a lock without keys or when not known
	 */
	public @Nullable String getKey() {
		return this.key;
	}

}
