package dev.zklock;

import org.jspecify.annotations.Nullable;

import java.time.Instant;

import dev.zklock.annotation.LockMode;

/**
 * A snapshot of one lock that this process holds or awaits, for one key.
 *
 * @param name the lock name
 * @param key the key, or {@code null} for a lock without keys
 * @param path the ZooKeeper path of the lock
 * @param mode the mode the lock was requested in
 * @param threadName the name of the thread holding or awaiting the lock
 * @param threadId the id of that thread
 * @param since when the thread started waiting, or acquired the lock
 * @param state whether the lock is held, awaited, in doubt, lost or being released
 * @param fencingToken the creation zxid of the holder's lock node, or 0 while
 * waiting
 * @param methodFinished whether the work that took the lock has finished while the
 * lock stays held for its {@code minHold}
 */
public record LockInfo(String name, @Nullable String key, String path, LockMode mode, String threadName, long threadId,
		Instant since, LockState state, long fencingToken, boolean methodFinished) {

	/**
	 * Create a snapshot of a lock whose work has not finished.
	 * @param name the lock name
	 * @param key the key, or {@code null} for a lock without keys
	 * @param path the ZooKeeper path of the lock
	 * @param mode the mode the lock was requested in
	 * @param threadName the name of the thread holding or awaiting the lock
	 * @param threadId the id of that thread
	 * @param since when the thread started waiting, or acquired the lock
	 * @param state the state
	 * @param fencingToken the fencing token, or 0 while waiting
	 */
	public LockInfo(String name, @Nullable String key, String path, LockMode mode, String threadName, long threadId,
			Instant since, LockState state, long fencingToken) {
		this(name, key, path, mode, threadName, threadId, since, state, fencingToken, false);
	}

}
