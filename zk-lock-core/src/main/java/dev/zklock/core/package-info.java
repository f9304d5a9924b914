/**
 * zk-lock's lock engine on Apache Curator, free of Spring Boot. One non-blocking
 * engine serves every mode and both APIs; the concepts, from the outside in:
 * <ul>
 * <li>{@link dev.zklock.core.CuratorLockManager}: the one manager. Its
 * {@code acquire} is the blocking API, a thin wait on the engine's future; its
 * {@code async(executor)} is the {@link dev.zklock.core.AsyncLockManager} view of
 * the same engine.</li>
 * <li>{@code LockEngine}: where locks live ({@code <basePath>/<name>/<key>},
 * {@link dev.zklock.core.KeyEncoder}), how an acquisition starts and how holds are
 * released.</li>
 * <li>{@code Acquisition}: one request, its keys in sorted order, all or nothing,
 * within one timeout; it deletes every node it created when it fails, times out or
 * is cancelled.</li>
 * <li>{@code NodeAttempt}: one node in one queue, driven by background calls and
 * a watch: {@code QueueAttempt} for every mode, ordered and decided by a
 * {@code QueueRule} (Curator's node names and order for MUTEX, READ and WRITE;
 * zk-lock's own lease queue for SEMAPHORE).</li>
 * <li>{@code Hold} and {@link dev.zklock.core.LockRegistry}: a held key and its
 * entry; one registry of every hold and wait, blocking and asynchronous, in a
 * {@link dev.zklock.core.LockState}.</li>
 * <li>{@code ConnectionLossHandler}: keeps the registry in line with the
 * connection (IN_DOUBT, LOST, interrupt-on-loss,
 * {@link dev.zklock.core.LockLossListener}s).</li>
 * <li>{@link dev.zklock.core.ZooKeeperReachability}: whether ZooKeeper answers,
 * and since when not, so that an acquisition ends by its deadline while it does not
 * ({@code CleanupWait}: how long a wait that gave up waits for its nodes).</li>
 * <li>{@code LockSlot}: the per-thread re-entrancy of blocking callers, kept on
 * top of the engine.</li>
 * <li>{@code CuratorLockHandle} and {@link dev.zklock.core.AsyncLockHandle}: what
 * callers hold; both are {@link dev.zklock.LockContext}s over their holds.</li>
 * </ul>
 * Instrumentation ({@link dev.zklock.core.LockInstrumentation},
 * {@link dev.zklock.core.InstrumentedLockManager}) and owner data
 * ({@link dev.zklock.core.LockOwnerData}) wrap the engine without changing it.
 */
@NullMarked
package dev.zklock.core;

import org.jspecify.annotations.NullMarked;
