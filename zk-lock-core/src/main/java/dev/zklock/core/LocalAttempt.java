package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.Nodes.LockNode;

/**
 * A {@link NodeAttempt} of a request with local hand-off: instead of a node of its
 * own, it waits in its {@link LocalCohort}'s queue in this process and holds with
 * the cohort's tenure node, so that a pass from one local holder to the next needs
 * no ZooKeeper operation. Its registry entry is its own, so that its thread,
 * timers and loss are those of one holder.
 */
final class LocalAttempt implements NodeAttempt {

	private final LocalCohorts cohorts;

	private final String path;

	private final LockMode mode;

	private final LockRegistry.Entry entry;

	private final boolean tryOnce;

	private final CompletableFuture<LockNode> result = new CompletableFuture<>();

	private final CompletableFuture<Void> removed = new CompletableFuture<>();

	// set once it joined a cohort
	private volatile @Nullable LocalCohort cohort;

	LocalAttempt(LocalCohorts cohorts, String path, LockMode mode, LockRegistry.Entry entry, boolean tryOnce) {
		this.cohorts = cohorts;
		this.path = path;
		this.mode = mode;
		this.entry = entry;
		this.tryOnce = tryOnce;
	}

	String path() {
		return this.path;
	}

	LockMode mode() {
		return this.mode;
	}

	void joined(LocalCohort joined) {
		this.cohort = joined;
	}

	LockRegistry.Entry entry() {
		return this.entry;
	}

	boolean isTryOnce() {
		return this.tryOnce;
	}

	CompletableFuture<LockNode> result() {
		return this.result;
	}

	@Override
	public CompletableFuture<LockNode> start() {
		this.entry.local(this);
		this.cohorts.join(this);
		return this.result;
	}

	@Override
	public void abandon() {
		if (this.result.complete(null)) {
			LocalCohort joined = this.cohort;
			if (joined != null) {
				joined.leave(this);
			}
			this.removed.complete(null);
		}
	}

	/**
	 * The tenure's ZooKeeper attempt failed: so does this waiter.
	 */
	void fail(Throwable ex) {
		if (this.result.completeExceptionally(ex)) {
			this.removed.complete(null);
		}
	}

	/**
	 * Hand the tenure's node to this waiter.
	 * @return false when it gave up meanwhile
	 */
	boolean grant(LockNode node) {
		return this.result.complete(node);
	}

	@Override
	public CompletableFuture<Void> release() {
		return release(false);
	}

	/**
	 * Give the lock back to the cohort: passed to the next local waiter when the
	 * tenure allows it and the hold was sound, else the tenure ends.
	 * @param sound whether the hold was held for sure until now (not in doubt, not
	 * after a pause, not lost)
	 */
	@Override
	public CompletableFuture<Void> release(boolean sound) {
		LocalCohort joined = this.cohort;
		CompletableFuture<Void> released = (joined != null) ? joined.release(this, sound)
				: CompletableFuture.completedFuture(null);
		released.whenComplete((ignored, ex) -> {
			if (ex != null) {
				this.removed.completeExceptionally(ex);
			}
			else {
				this.removed.complete(null);
			}
		});
		return released;
	}

	/**
	 * The hold was lost or taken away: the tenure ends for every local holder.
	 */
	void lost(LockLossReason reason) {
		LocalCohort joined = this.cohort;
		if (joined != null) {
			joined.holderLost(this, reason);
		}
	}

	@Override
	public CompletableFuture<Void> removed() {
		return this.removed;
	}

	@Override
	public boolean isWatching() {
		LocalCohort joined = this.cohort;
		return joined != null && !this.result.isDone() && joined.isQueued(this);
	}

	@Override
	public @Nullable String waitingNode() {
		LocalCohort joined = this.cohort;
		return (joined != null && !this.result.isDone()) ? joined.tenureNode() : null;
	}

	@Override
	public boolean isAnswered() {
		LocalCohort joined = this.cohort;
		return joined == null || joined.isAnswered();
	}

}
