package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import dev.zklock.LocalTenure;
import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.Nodes.LockNode;

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
 * all of them. In order:
 * <ol>
 * <li>{@link #join}: a waiter is granted at once (a READ beside readers), queued,
 * or starts a tenure ({@link #startTenure}).</li>
 * <li>{@link #tenureAnswered}: the tenure's node holds, and the first waiters (for
 * READ, all of them) share it; or it failed, and so do the waiters it was for.</li>
 * <li>{@link #release}: a holder leaves; the next waiter gets the key by a pass
 * while the tenure allows, else the node goes and the waiters start a new
 * tenure.</li>
 * <li>{@link #leave}, {@link #holderLost}, {@link #tenureGone}: a waiter gives up,
 * a holder is lost, or the tenure's node is gone.</li>
 * </ol>
 * Every field that changes does so under {@link #lock}, the {@link TenureWatch}'s
 * callbacks too; an idle cohort leaves its {@link LocalCohorts}' map.
 */
final class LocalCohort {

	final LocalCohorts cohorts;

	final String name;

	final @Nullable String key;

	final String path;

	final LockMode mode;

	final TenureWatch watch;

	final ReentrantLock lock = new ReentrantLock();

	private final ArrayDeque<LocalAttempt> waiters = new ArrayDeque<>();

	// volatile for isAnswered(), which reads it without the lock
	private volatile @Nullable Tenure tenure;

	// left the cohorts' map: a join must find or make another one
	private boolean retired;

	LocalCohort(LocalCohorts cohorts, String name, @Nullable String key, String path, LockMode mode) {
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
	private boolean canAdmit(Tenure current) {
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
	private boolean withinBounds(Tenure current) {
		return current.isAlone() || (current.passes < this.cohorts.maxPasses()
				&& System.nanoTime() - current.grantedNanos < this.cohorts.maxTimeNanos());
	}

	private void queue(LocalAttempt attempt) {
		this.waiters.add(attempt);
	}

	// Under the lock
	private Tenure newTenure(boolean tryOnce) {
		Tenure started = new Tenure(this.cohorts.newTenureAttempt(this.path, this.mode, tryOnce));
		this.tenure = started;
		return started;
	}

	// Under the lock: the next waiter, or for READ every waiter
	private void takeNext(List<LocalAttempt> grants) {
		while (!this.waiters.isEmpty() && (grants.isEmpty() || this.mode == LockMode.READ)) {
			grants.add(dequeue());
		}
	}

	private LocalAttempt dequeue() {
		return this.waiters.poll();
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

	/**
	 * The node this process's waiters of the key wait behind: the tenure's node once
	 * it holds, else its node still waiting in the queue.
	 * @return the node's full path, or {@code null} without a tenure or before its
	 * node is created
	 */
	@Nullable String tenureNode() {
		Tenure current = this.tenure;
		if (current == null) {
			return null;
		}
		LockNode node = current.node;
		return (node != null) ? node.path() : current.attempt.waitingNode();
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
	private void retireIfIdle() {
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
			this.waiters.remove(attempt);
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

	/**
	 * Whether a waiter is queued here, behind the tenure.
	 */
	boolean isQueued(LocalAttempt attempt) {
		this.lock.lock();
		try {
			return this.waiters.contains(attempt);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * One tenure of a {@link LocalCohort}: the one node this process keeps in a key's
	 * queue, from its creation until its deletion, and the local holders that share
	 * it. Every field changes under the cohort's lock, in the {@link TenureWatch}'s
	 * callbacks too. {@link #node} and {@link #ended} are volatile as well, for the
	 * cohort's quick looks without the lock ({@code isAnswered}, {@code listQueue}),
	 * and so is what the watch learns.
	 */
static final class Tenure {

		/** No listing asked for yet. */
		static final int UNWATCHED = 0;

		/** A listing with a watch asked for, not answered yet. */
		static final int REQUESTED = 1;

		/** The queue is listed and watched: {@link #othersWait} is known. */
		static final int WATCHED = 2;

		final NodeAttempt attempt;

		volatile @Nullable LockNode node;

		long grantedNanos;

		int passes;

		volatile boolean ended;

		// a READ was placed at this node by its WRITE holder: the node must go with that holder
		boolean last;

		final List<LocalAttempt> holders = new ArrayList<>(1);

		volatile int watch = UNWATCHED;

		// another process waits (READ: a writer waits); once seen, for the rest of the tenure
		volatile boolean othersWait;

		// the queue changed and is being listed again: no pass until the listing is back
		volatile boolean suspect;

		Tenure(NodeAttempt attempt) {
			this.attempt = attempt;
		}

		boolean isHeld() {
			return this.node != null && !this.ended;
		}

		/**
		 * Whether the watch vouches that nobody else waits, so that passes are not
		 * bounded.
		 */
		boolean isAlone() {
			return this.watch == WATCHED && !this.othersWait && !this.suspect;
		}

	}

}
