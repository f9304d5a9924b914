/**
 * zk-lock's lock engine on Apache Curator, free of Spring Boot. One non-blocking
 * engine serves every mode and both APIs. One class, or one class and its nested
 * types, per concept, from the outside in (the same table as in
 * {@code docs/architecture.md}):
 * <ul>
 * <li>{@link dev.zklock.core.CuratorLockManager}: the manager and its blocking
 * path, a park on the engine's acquisition on top of each thread's
 * {@code LockSlot}s (keyed by {@code LockSlot.Key}); {@code async(executor)} gives the
 * {@link dev.zklock.core.AsyncLockManager} view of the same engine.</li>
 * <li>{@link dev.zklock.core.AsyncLockManager}: the asynchronous path, from the
 * sorted keys to a handle, every result delivered on the view's executor.</li>
 * <li>{@code LockEngine}: builds the parts below and hands each what it uses;
 * the path blocking and asynchronous callers share (the checks, the key order,
 * the start of an acquisition, the hand-over to the hold timers).</li>
 * <li>{@link dev.zklock.core.LockPaths}: where locks live
 * ({@code <basePath>/<name>/<key>}) and how a name or key becomes one safe
 * segment.</li>
 * <li>{@code Acquisition}: one request, its keys in sorted order, all or nothing,
 * within one timeout, and how it ends short of every key.</li>
 * <li>{@code QueueAttempt}: the queue protocol in one class, one
 * {@code NodeAttempt} per node, decided by a {@code QueueRule} per mode, with the
 * background calls of {@code Nodes}.</li>
 * <li>{@link dev.zklock.core.LockNodeNames}: the one parser of node names.</li>
 * <li>{@link dev.zklock.core.LockRegistry} (with its {@code Entry}, {@code Hold}
 * and {@code HoldCap}): the per-key hold state: the registry of every hold and
 * wait, blocking and asynchronous, in a {@link dev.zklock.LockState}, its
 * transitions, a held key as its holder sees it, and its maxHold cap.</li>
 * <li>{@code HoldRelease}: how a hold ends: released by its work (kept until its
 * minHold has passed), or taken away (shutdown, maxHold, revocation).</li>
 * <li>{@code HoldTimers} / {@code MinHold}: the timers of a hold: its maxHold
 * (re-armed when a holder extends it), its minHold, and the arming of the
 * revocation watch.</li>
 * <li>{@code EngineTimer}: the engine's one timer thread.</li>
 * <li>{@code ConnectionLossHandler} / {@code LossAnnouncer}: keep the registry in
 * line with the connection (IN_DOUBT, LOST), and announce every loss.</li>
 * <li>{@link dev.zklock.core.ZooKeeperReachability} / {@code CleanupWait}: whether
 * ZooKeeper answers, and since when not; how long a wait that gave up waits for
 * its nodes.</li>
 * <li>{@code LockRevoker} / {@code RevocationWatch}: the revocation of a key's
 * holders, and the holder's watch that turns it into a loss.</li>
 * <li>{@code ShutdownDrain}: no new locks, the waits ended, the holds in flight
 * awaited, the rest taken away.</li>
 * <li>{@link dev.zklock.core.PauseDetector} / {@code PauseGuard}: a silent process
 * noticed, and its holds in doubt until a round trip confirms them.</li>
 * <li>{@code LocalCohorts} / {@code LocalCohort} (with its {@code Tenure}) /
 * {@code LocalAttempt} / {@code TenureWatch}: local hand-off for hot keys
 * ({@link dev.zklock.core.LocalHandoffs}, {@link dev.zklock.LocalTenure}).</li>
 * <li>{@code CuratorLockHandle} and {@link dev.zklock.core.AsyncLockHandle}: what
 * callers hold; both are {@link dev.zklock.LockContext}s over their holds.</li>
 * </ul>
 * Instrumentation ({@link dev.zklock.core.LockInstrumentation},
 * {@link dev.zklock.core.InstrumentedLockManager}) and owner data
 * ({@link dev.zklock.LockOwnerData}) wrap the engine without changing it. The
 * user-facing interfaces and values ({@link dev.zklock.LockManager}, the
 * listeners, {@link dev.zklock.LockState}, {@link dev.zklock.LockInfo}) live in
 * {@code dev.zklock}; this package exports what the Boot layer and the adapters
 * wire.
 */
@NullMarked
package dev.zklock.core;

import org.jspecify.annotations.NullMarked;
