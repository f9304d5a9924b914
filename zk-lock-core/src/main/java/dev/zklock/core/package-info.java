/**
 * zk-lock's lock engine on Apache Curator, free of Spring Boot. One non-blocking
 * engine serves every mode and both APIs; the concepts, from the outside in (the
 * same table as in {@code docs/architecture.md}):
 * <ul>
 * <li>{@link dev.zklock.core.CuratorLockManager} / {@code BlockingLocks}: the one
 * manager; {@code acquire} is the blocking API, a thin wait on the engine's future
 * on top of each thread's {@code LockSlot}s; {@code async(executor)} gives the
 * {@link dev.zklock.core.AsyncLockManager} view of the same engine.</li>
 * <li>{@link dev.zklock.core.AsyncLockManager} / {@code AsyncLocks}: the
 * asynchronous view; its path from the sorted keys to a handle, every result
 * delivered on the view's executor.</li>
 * <li>{@code LockEngine}: how an acquisition starts, and the parts below wired
 * together; it owns the registry, the loss handler and the timer.</li>
 * <li>{@code LockPaths}: where locks live ({@code <basePath>/<name>/<key>},
 * {@link dev.zklock.core.KeyEncoder}).</li>
 * <li>{@code Acquisition} / {@code AcquisitionWait}: one request, its keys in
 * sorted order, all or nothing; its wait, within one timeout, and how it ends short
 * of every key: it deletes every node it created when it fails, times out or is
 * cancelled.</li>
 * <li>{@code NodeAttempt}: one node in one queue, driven by background calls and
 * a watch: {@code QueueAttempt} for every mode reads the queue and decides by a
 * {@code QueueRule}, on top of {@code AbstractHandOffAttempt} (the watch on the
 * node ahead, the hand-off, the grant), {@code AbstractQueueAttempt} (create, owner
 * checks, joining again) and {@code AbstractNodeAttempt} (our node, its
 * delete).</li>
 * <li>{@link dev.zklock.core.LockNodeNames}: the one parser of node names, for the
 * queues, the revoker and the {@code locks} endpoint.</li>
 * <li>{@code Hold} / {@link dev.zklock.core.LockRegistry} / {@code RegistryEntry}:
 * a held key and its entry; one registry of every hold and wait, blocking and
 * asynchronous, in a {@link dev.zklock.core.LockState}.</li>
 * <li>{@code HoldRelease}: how a hold ends: released by its work, or taken away
 * (shutdown, maxHold, revocation).</li>
 * <li>{@code HoldTimers} / {@code MinHold}: the maxHold cap, the minHold that keeps
 * a released node until it has passed, and the arming of the revocation
 * watch.</li>
 * <li>{@code ConnectionLossHandler} / {@code LossAnnouncer}: keep the registry in
 * line with the connection (IN_DOUBT, LOST), and announce every loss
 * (interrupt-on-loss, {@link dev.zklock.core.LockLossListener}s).</li>
 * <li>{@link dev.zklock.core.ZooKeeperReachability} / {@code CleanupWait}: whether
 * ZooKeeper answers, and since when not, so that an acquisition ends by its
 * deadline while it does not; how long a wait that gave up waits for its
 * nodes.</li>
 * <li>{@code LockRevoker} / {@code RevocationWatch}: the
 * revocation of a key's holders, and the holder's watch that turns it into a
 * loss.</li>
 * <li>{@code ShutdownDrain}: no new locks, the waits ended, the holds in flight
 * awaited, the rest taken away.</li>
 * <li>{@link dev.zklock.core.PauseDetector} / {@code PauseGuard}: a silent process
 * noticed, and its holds in doubt until a round trip confirms them.</li>
 * <li>{@code LocalCohorts} / {@code LocalCohort} / {@code Tenure} /
 * {@code LocalAttempt} / {@code TenureWatch}: local hand-off for hot keys: one
 * node of this process per key and mode, local waiters queued behind it, passes
 * without ZooKeeper while the tenure is held for sure and within its bounds
 * ({@link dev.zklock.core.LocalHandoffs}, {@link dev.zklock.core.LocalTenure}).</li>
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
