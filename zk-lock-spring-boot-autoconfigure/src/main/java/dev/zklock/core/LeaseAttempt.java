package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * A {@link NodeAttempt} for one SEMAPHORE lease, with the layout and protocol of
 * Curator's {@code InterProcessSemaphoreV2}, so both can share a path: take the
 * mutex under {@code locks} (a {@link QueueAttempt}), create a lease (protected,
 * ephemeral sequential) under {@code leases}, and, still holding the mutex, wait
 * until at most {@code permits} leases exist; then give the mutex back. Only the
 * mutex holder watches the leases, so a release wakes one waiter. The lease's
 * creation zxid, from the create response, is the fencing token.
 */
final class LeaseAttempt extends AbstractNodeAttempt {

	private static final String LOCK_PARENT = "locks";

	private static final String LEASE_PARENT = "leases";

	private static final String LEASE_NAME = "lease-";

	// A lease that vanished (its session expired) is asked for again this often
	private static final int MAX_RESTARTS = 3;

	private final CuratorFramework parent;

	private final String path;

	private final String leasesPath;

	private final int permits;

	private final byte @Nullable [] data;

	private final boolean tryOnce;

	private final Watcher watcher = (event) -> readLeases();

	private @Nullable QueueAttempt mutex;

	private @Nullable String leasePath;

	private @Nullable Stat leaseStat;

	private int restarts;

	LeaseAttempt(CuratorFramework client, String path, int permits, byte @Nullable [] data, boolean tryOnce) {
		super(client);
		this.parent = client;
		this.path = path;
		this.leasesPath = ZKPaths.makePath(path, LEASE_PARENT);
		this.permits = permits;
		this.data = data;
		this.tryOnce = tryOnce;
	}

	@Override
	public CompletableFuture<LockNode> start() {
		takeMutex();
		return this.result;
	}

	@Override
	public boolean isWatching() {
		QueueAttempt current = this.mutex;
		return !this.result.isDone() && (this.watching || (current != null && current.isWatching()));
	}

	@Override
	void giveBack() {
		cleanUp();
	}

	@Override
	public CompletableFuture<Void> release() {
		return deleteNode(takeLease());
	}

	private void takeMutex() {
		QueueAttempt attempt = new QueueAttempt(this.parent, ZKPaths.makePath(this.path, LOCK_PARENT), QueueRule.MUTEX,
				this.data, this.tryOnce, null);
		this.lock.lock();
		try {
			if (this.abandoned) {
				return;
			}
			this.mutex = attempt;
		}
		finally {
			this.lock.unlock();
		}
		attempt.start().whenComplete((node, ex) -> {
			if (ex != null) {
				fail(asException(ex));
			}
			else if (node == null) {
				// taken at the single look, or abandoned: the mutex attempt removes its own node
				this.result.complete(null);
				attempt.removed().whenComplete((ignored, failure) -> settle(failure));
			}
			else {
				createLease();
			}
		});
	}

	private void createLease() {
		try {
			Nodes.create(this.client, ZKPaths.makePath(this.leasesPath, LEASE_NAME), CreateMode.EPHEMERAL_SEQUENTIAL,
					this.data, (c, event) -> leaseCreated(event));
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void leaseCreated(CuratorEvent event) {
		if (!Nodes.isOk(event)) {
			fail(Nodes.error(event));
			return;
		}
		boolean abandonedMeanwhile;
		this.lock.lock();
		try {
			this.leasePath = event.getName();
			this.leaseStat = event.getStat();
			abandonedMeanwhile = this.abandoned;
		}
		finally {
			this.lock.unlock();
		}
		if (abandonedMeanwhile) {
			cleanUp();
		}
		else {
			readLeases();
		}
	}

	private void readLeases() {
		this.watching = false;
		if (this.result.isDone()) {
			return;
		}
		try {
			this.client.getChildren()
				.usingWatcher(this.watcher)
				.inBackground((c, event) -> leasesRead(event))
				.forPath(this.leasesPath);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void leasesRead(CuratorEvent event) {
		if (!Nodes.isOk(event)) {
			fail(Nodes.error(event));
			return;
		}
		String ours;
		Stat stat;
		this.lock.lock();
		try {
			if (this.abandoned || this.result.isDone() || this.leasePath == null) {
				return;
			}
			ours = this.leasePath;
			stat = this.leaseStat;
		}
		finally {
			this.lock.unlock();
		}
		List<String> leases = event.getChildren();
		if (!leases.contains(ZKPaths.getNodeFromPath(ours))) {
			restart(ours);
		}
		else if (leases.size() <= this.permits) {
			this.client.removeWatchers();
			releaseMutex();
			Nodes.resolve(this.client, ours, stat, this.result);
		}
		else if (this.tryOnce) {
			this.result.complete(null);
			cleanUp();
		}
		else {
			this.watching = true;
		}
	}

	// Our lease went, most likely with its session: give the mutex back and queue again
	private void restart(String lease) {
		boolean again;
		this.lock.lock();
		try {
			this.leasePath = null;
			again = ++this.restarts <= MAX_RESTARTS;
		}
		finally {
			this.lock.unlock();
		}
		this.client.removeWatchers();
		releaseMutex();
		if (again) {
			takeMutex();
		}
		else {
			fail(new KeeperException.NoNodeException(
					"Lease " + lease + " vanished while waiting, " + MAX_RESTARTS + " times; possibly a session loss"));
		}
	}

	private void fail(Exception ex) {
		if (this.result.completeExceptionally(ex)) {
			cleanUp();
		}
	}

	// Give back what an unfinished attempt took: its mutex node and its lease
	private void cleanUp() {
		this.client.removeWatchers();
		QueueAttempt attempt = this.mutex;
		String lease = takeLease();
		CompletableFuture<Void> mutexGone = CompletableFuture.completedFuture(null);
		if (attempt != null) {
			attempt.abandon();
			attempt.release();
			mutexGone = attempt.removed();
		}
		CompletableFuture<Void> leaseGone = (lease != null) ? Nodes.delete(this.client, lease)
				: CompletableFuture.completedFuture(null);
		CompletableFuture.allOf(mutexGone, leaseGone).whenComplete((ignored, ex) -> settle(ex));
	}

	private void releaseMutex() {
		QueueAttempt held = this.mutex;
		if (held != null) {
			held.release();
		}
	}

	private @Nullable String takeLease() {
		this.lock.lock();
		try {
			String lease = this.leasePath;
			this.leasePath = null;
			this.leaseStat = null;
			return lease;
		}
		finally {
			this.lock.unlock();
		}
	}

}
