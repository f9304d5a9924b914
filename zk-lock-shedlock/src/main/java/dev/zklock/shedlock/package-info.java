/**
 * ShedLock's {@code LockProvider} on zk-lock's engine.
 */
@NullMarked
package dev.zklock.shedlock;

import org.jspecify.annotations.NullMarked;
