package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.data.Stat;

/**
 * What every {@link NodeAttempt} keeps: a client whose watches it can remove, its
 * result, our node once created (its path and stat) and its deletion on release,
 * the future that tells when it left no node behind, and the lock its state
 * changes under. A {@link ReentrantLock} rather than a monitor, so that a
 * virtual thread abandoning an attempt never blocks in one.
 */
abstract class AbstractNodeAttempt implements NodeAttempt {

	final WatcherRemoveCuratorFramework client;

	final CompletableFuture<LockNode> result = new CompletableFuture<>();

	final CompletableFuture<Void> removed = new CompletableFuture<>();

	final ReentrantLock lock = new ReentrantLock();

	volatile boolean watching;

	volatile boolean answered;

	// under the lock
	boolean abandoned;

	// under the lock
	@Nullable String ourPath;

	// under the lock
	@Nullable Stat ourStat;

	AbstractNodeAttempt(CuratorFramework client) {
		this.client = client.newWatcherRemoveCuratorFramework();
	}

	@Override
	public CompletableFuture<Void> removed() {
		return this.removed;
	}

	@Override
	public boolean isAnswered() {
		return this.answered;
	}

	@Override
	public boolean isWatching() {
		return this.watching && !this.result.isDone();
	}

	@Override
	public final void abandon() {
		this.lock.lock();
		try {
			if (this.abandoned || this.result.isDone()) {
				return;
			}
			this.abandoned = true;
		}
		finally {
			this.lock.unlock();
		}
		this.result.complete(null);
		giveBack();
	}

	/**
	 * Delete what an abandoned attempt created, now or once its creation is
	 * confirmed.
	 */
	void giveBack() {
		// deletes our node now, or created() does once its creation is confirmed
		release();
	}

	@Override
	public CompletableFuture<Void> release() {
		String toDelete;
		this.lock.lock();
		try {
			toDelete = this.ourPath;
			this.ourPath = null;
		}
		finally {
			this.lock.unlock();
		}
		return deleteNode(toDelete);
	}

	final @Nullable Stat ourStat() {
		this.lock.lock();
		try {
			return this.ourStat;
		}
		finally {
			this.lock.unlock();
		}
	}

	final boolean isPending() {
		this.lock.lock();
		try {
			return !this.abandoned && !this.result.isDone() && this.ourPath != null;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stop watching and delete our node, if there is one; {@link #removed()}
	 * completes once ZooKeeper confirmed it.
	 * @param path the node, or {@code null} when none was created
	 * @return completes once the node is confirmed gone
	 */
	CompletableFuture<Void> deleteNode(@Nullable String path) {
		this.client.removeWatchers();
		if (path == null) {
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<Void> deleted = Nodes.delete(this.client, path);
		deleted.whenComplete((ignored, ex) -> settle(ex));
		return deleted;
	}

	/**
	 * Complete {@link #removed()}: normally, or with the failure that kept a node
	 * from being confirmed deleted.
	 */
	void settle(Throwable failure) {
		if (failure != null) {
			this.removed.completeExceptionally(failure);
		}
		else {
			this.removed.complete(null);
		}
	}

	/**
	 * Whether a node's ephemeral owner is the client's current session: only such a
	 * node can hold a lock or keep a place in a queue.
	 */
	boolean isCurrentSession(long ephemeralOwner) {
		try {
			return ephemeralOwner != 0 && ephemeralOwner == this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			// no session to compare with: not ours for sure
			return false;
		}
	}

	static Exception asException(Throwable ex) {
		return (ex instanceof Exception exception) ? exception : new IllegalStateException(ex);
	}

}
