package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * What a {@link LocalCohort} keeps: its local waiters in FIFO order, its current
 * {@link Tenure}, the lock they change under, and the rules that read them: when
 * a tenure may pass or admit a reader, and how the cohort looks from outside.
 * Fields without {@code final} change under the lock.
 */
abstract class AbstractLocalCohort {


	final LocalCohorts cohorts;

	final String name;

	final @Nullable String key;

	final String path;

	final LockMode mode;

	final TenureWatch watch;

	final ReentrantLock lock = new ReentrantLock();

	final ArrayDeque<LocalAttempt> waiters = new ArrayDeque<>();

	// volatile for isAnswered(), which reads it without the lock
	volatile @Nullable Tenure tenure;

	// left the cohorts' map: a join must find or make another one
	boolean retired;

	AbstractLocalCohort(LocalCohorts cohorts, String name, @Nullable String key, String path, LockMode mode) {
		this.cohorts = cohorts;
		this.name = name;
		this.key = key;
		this.path = path;
		this.mode = mode;
		this.watch = new TenureWatch(cohorts.client(), this);
	}

	LockMode mode() {
		return this.mode;
	}

	String path() {
		return this.path;
	}

	// Under the lock: READ admits while the tenure is sound, no writer waits and nobody is queued ahead
	boolean canAdmit(Tenure current) {
		if (this.mode != LockMode.READ || current.last || current.othersWait || current.suspect
				|| !this.waiters.isEmpty() || !withinBounds(current)) {
			return false;
		}
		for (LocalAttempt holder : current.holders) {
			if (!this.cohorts.isSound(holder.entry())) {
				return false;
			}
		}
		return true;
	}

	// Under the lock: alone, passes go on; once another process may wait, up to maxPasses or maxTime
	boolean withinBounds(Tenure current) {
		return current.isAlone() || (current.passes < this.cohorts.maxPasses()
				&& System.nanoTime() - current.grantedNanos < this.cohorts.maxTimeNanos());
	}

	void queue(LocalAttempt attempt) {
		this.waiters.add(attempt);
		attempt.queued = true;
	}

	// Under the lock
	Tenure newTenure(boolean tryOnce) {
		Tenure started = new Tenure(this.cohorts.newTenureAttempt(this.path, this.mode, tryOnce), tryOnce);
		this.tenure = started;
		return started;
	}

	// Under the lock: the next waiter, or for READ every waiter
	void takeNext(List<LocalAttempt> grants) {
		while (!this.waiters.isEmpty() && (grants.isEmpty() || this.mode == LockMode.READ)) {
			grants.add(dequeue());
		}
	}

	LocalAttempt dequeue() {
		LocalAttempt next = this.waiters.poll();
		next.queued = false;
		return next;
	}

	/**
	 * A READ was placed at the tenure's node by its WRITE holder: the tenure ends
	 * with that holder.
	 */
	void lastHolder(String nodePath) {
		this.lock.lock();
		try {
			Tenure current = this.tenure;
			if (current != null && current.node != null && current.node.path().equals(nodePath)) {
				current.last = true;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	boolean isAnswered() {
		Tenure current = this.tenure;
		return current == null || current.node != null || current.attempt.isAnswered();
	}

	@Nullable LocalTenure snapshot() {
		this.lock.lock();
		try {
			Tenure current = this.tenure;
			if (current == null && this.waiters.isEmpty()) {
				return null;
			}
			LockNode node = (current != null) ? current.node : null;
			List<String> holders = new ArrayList<>();
			if (current != null) {
				current.holders.forEach((holder) -> holders.add(holder.entry().threadName()));
			}
			return new LocalTenure(this.name, this.key, this.mode, (node != null) ? node.path() : null,
					(node != null) ? node.czxid() : 0, List.copyOf(holders), this.waiters.size(),
					(current != null) ? current.passes : 0, current != null && current.othersWait);
		}
		finally {
			this.lock.unlock();
		}
	}

	void listQueue() {
		Tenure current = this.tenure;
		if (current != null && current.isHeld()) {
			this.watch.list(current, this.path);
		}
	}

	// Under the lock: an idle cohort leaves the map, so that keys used once leave nothing behind
	void retireIfIdle() {
		if (this.tenure == null && this.waiters.isEmpty()) {
			this.retired = true;
			this.cohorts.retire(this);
		}
	}

	/**
	 * A holder was lost or taken away: the tenure ends for every local holder, its
	 * node goes, and the waiters join the queue again.
	 */
	void holderLost(LocalAttempt lost, LockLossReason reason) {
		Tenure current;
		this.lock.lock();
		try {
			current = this.tenure;
			if (current == null || !current.holders.contains(lost)) {
				return;
			}
		}
		finally {
			this.lock.unlock();
		}
		tenureGone(current, reason);
	}

	/**
	 * The tenure is gone or taken away: every local holder loses it with the reason.
	 */
	abstract void tenureGone(Tenure gone, LockLossReason reason);

}
