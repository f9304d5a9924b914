package dev.zklock;

import org.jspecify.annotations.Nullable;

import java.util.List;

import dev.zklock.annotation.LockMode;

/**
 * A snapshot of one key this process locks with local hand-off: its tenure node
 * in ZooKeeper, if any, the local holders sharing it, the local waiters queued
 * behind it and the passes so far.
 *
 * @param name the lock name
 * @param key the key, or {@code null} for a lock without keys
 * @param mode the mode
 * @param node the path of the tenure's node, or {@code null} while it is being
 * acquired
 * @param fencingToken the token every holder of the tenure shares, 0 while it is
 * being acquired
 * @param holders the names of the threads holding it now ({@code async} for an
 * asynchronous holder)
 * @param waiters the number of local waiters queued behind it
 * @param passes the local passes within this tenure so far
 * @param othersWaiting whether another process is known to wait, which bounds the
 * tenure
 */
public record LocalTenure(String name, @Nullable String key, LockMode mode, @Nullable String node, long fencingToken,
		List<String> holders, int waiters, int passes, boolean othersWaiting) {

}
