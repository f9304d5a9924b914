/**
 * The public API of zk-lock: distributed locks on Apache ZooKeeper for Spring Boot.
 * Lock with {@link dev.zklock.annotation.DistributedLock} or {@link
 * dev.zklock.LockTemplate}; {@link dev.zklock.LockContext} and {@link
 * dev.zklock.FencingToken} give the held lock's fencing token.
 */
@NullMarked
package dev.zklock;

import org.jspecify.annotations.NullMarked;
