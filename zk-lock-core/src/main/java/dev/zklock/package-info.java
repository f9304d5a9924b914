/**
 * The Spring-free part of zk-lock's public API: {@link dev.zklock.LockTemplate} and
 * {@link dev.zklock.LockRequest} to lock, {@link dev.zklock.LockContext} and
 * {@link dev.zklock.FencingToken} for the held lock's fencing token, the
 * {@link dev.zklock.LockManager} interface with its listeners, the values that
 * describe a lock ({@link dev.zklock.LockState}, {@link dev.zklock.LockInfo},
 * {@link dev.zklock.LocalTenure}, {@link dev.zklock.LockOwnerData}), and the
 * exceptions. The Spring events of this package live in
 * zk-lock-spring-boot-autoconfigure.
 */
@NullMarked
package dev.zklock;

import org.jspecify.annotations.NullMarked;
