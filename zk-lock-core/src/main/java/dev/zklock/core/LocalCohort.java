package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * The local hand-off of one key in one mode (lock cohorting): this process's
 * waiters queue here in FIFO order behind at most one node of ours in ZooKeeper,
 * the {@link Tenure}, and a release passes the key to the next local waiter
 * without a ZooKeeper operation. A pass happens only while the tenure is held for
 * sure (the releasing hold was neither in doubt, nor suspect after a pause, nor
 * lost) and within its bounds: unbounded while the {@link TenureWatch} vouches
 * that no other process waits, else at most {@code maxPasses} passes or
 * {@code maxTime} from the tenure's grant. READ admits local readers at once while
 * no writer waits anywhere. Then the node is deleted and the remaining waiters
 * join the queue again with a new one. Any loss of a holder ends the tenure for
 * all of them.
 */
final class LocalCohort extends AbstractLocalCohort {

	LocalCohort(LocalCohorts cohorts, String name, @Nullable String key, String path, LockMode mode) {
		super(cohorts, name, key, path, mode);
	}

	/**
	 * Queue a local waiter, or grant it at once: a READ beside readers of a tenure
	 * no writer waits for. A single try fails when any local holder or waiter is
	 * ahead of it.
	 * @return false when the cohort is retired and the waiter must join another
	 */
	boolean join(LocalAttempt attempt) {
		LockNode grant = null;
		Tenure start = null;
		boolean watchNow = false;
		boolean failed = false;
		this.lock.lock();
		try {
			if (this.retired) {
				return false;
			}
			if (attempt.result().isDone()) {
				// abandoned before it started
				return true;
			}
			Tenure current = this.tenure;
			if (current == null) {
				start = newTenure(attempt.isTryOnce());
				queue(attempt);
			}
			else if (current.isHeld() && canAdmit(current)) {
				current.holders.add(attempt);
				current.passes++;
				grant = current.node;
				watchNow = current.watch == Tenure.UNWATCHED;
				if (watchNow) {
					current.watch = Tenure.REQUESTED;
				}
			}
			else if (attempt.isTryOnce()) {
				failed = true;
			}
			else {
				queue(attempt);
				watchNow = current.isHeld() && current.watch == Tenure.UNWATCHED;
				if (watchNow) {
					current.watch = Tenure.REQUESTED;
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		if (failed) {
			attempt.abandon();
		}
		else if (grant != null) {
			this.cohorts.passed(1);
			deliver(attempt, grant);
		}
		else if (start != null) {
			startTenure(start);
		}
		if (watchNow) {
			listQueue();
		}
		return true;
	}

	private void startTenure(Tenure started) {
		started.attempt.start().whenComplete((node, ex) -> tenureAnswered(started, node, ex));
	}

	private void tenureAnswered(Tenure answered, @Nullable LockNode node, @Nullable Throwable ex) {
		List<LocalAttempt> grants = new ArrayList<>();
		List<LocalAttempt> failures = new ArrayList<>();
		Tenure restart = null;
		boolean giveBack = false;
		boolean watchNow = false;
		this.lock.lock();
		try {
			if (this.tenure != answered) {
				giveBack = node != null;
			}
			else if (node == null || ex != null) {
				// a single try found the key taken, or ZooKeeper failed: every waiter it was for fails
				this.tenure = null;
				while (!this.waiters.isEmpty() && (ex != null || this.waiters.peek().isTryOnce())) {
					failures.add(dequeue());
				}
				restart = this.waiters.isEmpty() ? null : newTenure(false);
			}
			else {
				answered.node = node;
				answered.grantedNanos = System.nanoTime();
				takeNext(grants);
				answered.passes = Math.max(0, grants.size() - 1);
				if (grants.isEmpty()) {
					answered.ended = true;
					this.tenure = null;
					giveBack = true;
				}
				else {
					answered.holders.addAll(grants);
					watchNow = !this.waiters.isEmpty();
					if (watchNow) {
						answered.watch = Tenure.REQUESTED;
					}
				}
			}
			retireIfIdle();
		}
		finally {
			this.lock.unlock();
		}
		if (giveBack) {
			answered.attempt.release();
		}
		if (!grants.isEmpty() && node != null) {
			this.cohorts.grantedByZooKeeper();
			if (grants.size() > 1) {
				this.cohorts.passed(grants.size() - 1);
			}
			for (LocalAttempt grant : grants) {
				deliver(grant, node);
			}
		}
		for (LocalAttempt failure : failures) {
			if (ex != null) {
				failure.fail(ex);
			}
			else {
				failure.abandon();
			}
		}
		if (restart != null) {
			startTenure(restart);
		}
		if (watchNow) {
			listQueue();
		}
	}

	/**
	 * A local holder releases: pass to the next local waiter if the tenure allows,
	 * else end the tenure and delete its node.
	 * @return completes at once after a pass, else once the node is deleted
	 */
	CompletableFuture<Void> release(LocalAttempt holder, boolean sound) {
		List<LocalAttempt> grants = new ArrayList<>();
		Tenure ended = null;
		Tenure restart = null;
		@Nullable LockNode node;
		this.lock.lock();
		try {
			Tenure current = this.tenure;
			if (current == null || !current.holders.remove(holder)) {
				// the tenure ended already, with its node
				return CompletableFuture.completedFuture(null);
			}
			node = current.node;
			if (!sound) {
				current.last = true;
			}
			if (!current.holders.isEmpty()) {
				// other readers still hold the tenure
				return CompletableFuture.completedFuture(null);
			}
			// readers queued behind a waiting writer wait for it
			boolean writerFirst = this.mode == LockMode.READ && current.othersWait;
			if (!current.last && !current.suspect && !writerFirst && withinBounds(current)) {
				takeNext(grants);
				current.passes += grants.size();
			}
			if (grants.isEmpty()) {
				current.ended = true;
				this.tenure = null;
				ended = current;
				restart = this.waiters.isEmpty() ? null : newTenure(false);
			}
			else {
				current.holders.addAll(grants);
			}
			retireIfIdle();
		}
		finally {
			this.lock.unlock();
		}
		if (ended == null && node != null) {
			this.cohorts.passed(grants.size());
			for (LocalAttempt grant : grants) {
				deliver(grant, node);
			}
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<Void> deleted = (ended != null) ? ended.attempt.release()
				: CompletableFuture.completedFuture(null);
		if (restart != null) {
			startTenure(restart);
		}
		return deleted;
	}

	/**
	 * A waiter gave up before its grant: it leaves the queue, and a tenure still
	 * being acquired for nobody is abandoned.
	 */
	void leave(LocalAttempt attempt) {
		Tenure abandoned = null;
		this.lock.lock();
		try {
			if (attempt.queued) {
				this.waiters.remove(attempt);
				attempt.queued = false;
			}
			Tenure current = this.tenure;
			if (current != null && current.node == null && this.waiters.isEmpty()) {
				this.tenure = null;
				abandoned = current;
			}
			retireIfIdle();
		}
		finally {
			this.lock.unlock();
		}
		if (abandoned != null) {
			abandoned.attempt.abandon();
		}
	}

	/**
	 * The tenure is gone or taken away: every local holder loses it with the reason.
	 */
	@Override
	void tenureGone(Tenure gone, LockLossReason reason) {
		List<LocalAttempt> holders;
		Tenure restart;
		this.lock.lock();
		try {
			if (this.tenure != gone || gone.ended) {
				return;
			}
			gone.ended = true;
			this.tenure = null;
			holders = new ArrayList<>(gone.holders);
			gone.holders.clear();
			restart = this.waiters.isEmpty() ? null : newTenure(false);
			retireIfIdle();
		}
		finally {
			this.lock.unlock();
		}
		for (LocalAttempt holder : holders) {
			this.cohorts.takeAway(holder.entry(), reason);
		}
		gone.attempt.release();
		if (restart != null) {
			startTenure(restart);
		}
	}

	// A grant that comes too late for an attempt abandoned meanwhile is passed on at once
	private void deliver(LocalAttempt attempt, LockNode node) {
		if (!attempt.grant(node)) {
			release(attempt, true);
		}
	}

}
