package dev.zklock;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

import dev.zklock.annotation.LockMode;

/**
 * Published when a lock held by this application is lost: its ZooKeeper session
 * ended, or its node disappeared, while a thread still held it. Another process
 * may hold the lock now. Published on zk-lock's connection thread; listeners should
 * be quick.
 */
public class LockLostEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String lockName;

	private final @Nullable String key;

	private final String path;

	private final LockMode mode;

	private final long fencingToken;

	private final String threadName;

	private final LockLossReason reason;

	/**
	 * Create a new event.
	 * @param source the lock manager that lost the lock
	 * @param lockName the lock name
	 * @param key the key, or {@code null} for a lock without keys
	 * @param path the ZooKeeper path of the lock
	 * @param mode the mode the lock was held in
	 * @param fencingToken the holder's fencing token
	 * @param threadName the name of the thread that held the lock
	 * @param reason why the lock was lost
	 */
	public LockLostEvent(Object source, String lockName, @Nullable String key, String path, LockMode mode, long fencingToken,
			String threadName, LockLossReason reason) {
		super(source);
		this.lockName = lockName;
		this.key = key;
		this.path = path;
		this.mode = mode;
		this.fencingToken = fencingToken;
		this.threadName = threadName;
		this.reason = reason;
	}

	/**
	 * The lock name.
	 * @return the name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * The key that was lost.
	 * @return the key, or {@code null} for a lock without keys
	 */
	public @Nullable String getKey() {
		return this.key;
	}

	/**
	 * The ZooKeeper path of the lock.
	 * @return the path
	 */
	public String getPath() {
		return this.path;
	}

	/**
	 * The mode the lock was held in.
	 * @return the mode
	 */
	public LockMode getMode() {
		return this.mode;
	}

	/**
	 * The lost holder's fencing token: a resource that has seen a larger token
	 * rejects this holder's writes.
	 * @return the token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * The name of the thread that held the lock.
	 * @return the thread name
	 */
	public String getThreadName() {
		return this.threadName;
	}

	/**
	 * Why the lock was lost.
	 * @return the reason
	 */
	public LockLossReason getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LockLostEvent[lock=" + this.lockName + ", key=" + this.key + ", path=" + this.path + ", mode="
				+ this.mode + ", fencingToken=" + this.fencingToken + ", thread=" + this.threadName + ", reason="
				+ this.reason + "]";
	}

}
