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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NodeAttempt} for one SEMAPHORE lease, with the layout and protocol of
 * Curator's {@code InterProcessSemaphoreV2}, so both can share a path: take the
 * mutex under {@code locks} (a {@link QueueAttempt}), create a lease (protected,
 * ephemeral sequential) under {@code leases}, and, still holding the mutex, wait
 * until at most {@code permits} leases exist; then give the mutex back. Only the
 * mutex holder watches the leases, so a release wakes one waiter. The lease's
 * creation zxid, from the create response, is the fencing token. A lease or mutex
 * node whose ephemeral owner is not the client's current session counts for
 * nothing: the attempt deletes it and asks again.
 */
final class LeaseAttempt extends AbstractNodeAttempt {

	private static final Logger logger = LoggerFactory.getLogger(LeaseAttempt.class);

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

	// the node that holds the mutex, while it does
	private volatile @Nullable LockNode mutexNode;

	// set while a grant checks our lease's owner: a late lease read must not restart meanwhile
	private volatile boolean granting;

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
				this.data, this.tryOnce, null, 0);
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
				this.mutexNode = node;
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
		if (this.granting) {
			return;
		}
		List<String> leases = event.getChildren();
		if (!leases.contains(ZKPaths.getNodeFromPath(ours))) {
			restart(ours);
		}
		else if (stat != null && !isCurrentSession(stat.getEphemeralOwner())) {
			// still listed, but its session has ended for us: it counts for nothing, not even as our place
			restart(ours);
		}
		else if (!holdsMutex()) {
			// the mutex node went with an earlier session: another client may count the leases now
			restart(ours);
		}
		else if (leases.size() <= this.permits) {
			this.client.removeWatchers();
			releaseMutex();
			grant(ours, stat);
		}
		else if (this.tryOnce) {
			this.result.complete(null);
			cleanUp();
		}
		else {
			this.watching = true;
		}
	}

	/**
	 * Hand out our lease, only when its ephemeral owner is the client's current
	 * session: a lease found again by protected mode after a reconnect has no stat
	 * and is read once here.
	 */
	private void grant(String lease, @Nullable Stat stat) {
		this.granting = true;
		CompletableFuture<LockNode> node = new CompletableFuture<>();
		node.whenComplete((held, ex) -> {
			if (ex != null) {
				fail(asException(ex));
			}
			else if (!isCurrentSession(held.session())) {
				this.granting = false;
				restart(lease);
			}
			else {
				this.result.complete(held);
			}
		});
		Nodes.resolve(this.client, lease, stat, node);
	}

	// Our lease went, or is of an ended session: give the mutex back and queue again
	private void restart(String lease) {
		boolean again;
		this.lock.lock();
		try {
			if (this.abandoned || this.result.isDone()) {
				return;
			}
			this.leasePath = null;
			this.leaseStat = null;
			again = ++this.restarts <= MAX_RESTARTS;
		}
		finally {
			this.lock.unlock();
		}
		logger.debug("Lease {} under {} vanished or is of an earlier session, or the mutex is; asking again",
				lease, this.path);
		this.client.removeWatchers();
		// a lease of an ended session is gone or about to go; deleting it frees its permit at once
		Nodes.delete(this.client, lease);
		releaseMutex();
		if (again) {
			takeMutex();
		}
		else {
			fail(new KeeperException.NoNodeException("Lease " + lease + " vanished or belonged to an ended session, "
					+ MAX_RESTARTS + " times; possibly repeated session losses"));
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

	private boolean holdsMutex() {
		LockNode node = this.mutexNode;
		return node != null && isCurrentSession(node.session());
	}

	private void releaseMutex() {
		this.mutexNode = null;
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
