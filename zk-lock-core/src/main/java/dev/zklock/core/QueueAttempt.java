package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NodeAttempt} in a queue of ephemeral sequential nodes, ordered and
 * decided by a {@link QueueRule}: MUTEX, READ, WRITE and SEMAPHORE. It creates a
 * protected node, reads the queue, and either holds or waits as the rule says,
 * reading the queue again when woken.
 * Joining the queue (the create with the first read behind it) is
 * {@link AbstractQueueAttempt}'s; waiting for the node ahead, the hand-off and the
 * grant are {@link AbstractHandOffAttempt}'s.
 * <p>
 * A hand-off needs no second read when the last one proves it: when that read
 * showed exactly one node ahead (MUTEX, WRITE) or one writer ahead (READ), the
 * deletion of that node, reported on our own session, leaves none, and our node
 * holds. That rests on "no node joins ahead of a waiter after its read". Every way
 * a node could appear ahead of a waiter, or a holder exist that is not its
 * predecessor, and why the rule holds (tests in brackets):
 * <ul>
 * <li>A new node: sequence numbers under one parent only grow, and the parent, a
 * container, is not swept while our node exists.</li>
 * <li>A READ inside WRITE, and a downgrade (READ taken, then WRITE released): the
 * read node is placed at the write node's sequence, ahead of the writer's waiters.
 * Before that READ holds, it writes the write node's data once; a waiter watching
 * the write node wakes and reads the queue, and one whose watch comes later sees a
 * version above 0 and gives up the hand-off. A write node gone before the watch was
 * set proves nothing either: a WRITE waiter reads the queue. Readers share with
 * the read node, so a READ waiter keeps the hand-off (WriteLockContractTests,
 * HandOffTests, ReadWriteExclusionProcessTests).</li>
 * <li>Re-entry while downgraded, and WRITE inside WRITE: counted in the thread's
 * slot, no node (HandOffTests, the contract tests' re-entry case).</li>
 * <li>A protected create retried after a connection loss: Curator finds the node
 * of the first try, at the sequence it had, behind every node read before it
 * (ConnectionLossTests, SessionExpiryWhileCreatingTests).</li>
 * <li>A waiting node timed out or expired in the middle of the queue: the waiter
 * behind it saw two nodes ahead, so it reads the queue; the node that leaves joins
 * again at the end (HandOffTests).</li>
 * <li>Revoke: {@link LockRevoker} deletes only nodes that hold by the queue's rule.
 * A front node whose owner has not yet learned that it holds is such a holder: the
 * waiter behind it holds on its deletion, and its owner learns the loss from its
 * {@link RevocationWatch}, as any revoked holder does (RevocationTests).</li>
 * <li>Our own session ending: the grant checks that our node is of the current
 * session; a READ at the write node of an ended session fails
 * (SessionOwnershipTests, SessionExpiryWhileHoldingTests).</li>
 * <li>{@code minHold}: a released holder's node stays until its minimum hold ends,
 * and still counts as the holder (MinHoldTests).</li>
 * <li>SEMAPHORE: no hand-off by deletion; a waiter promoted to holder writes its
 * data once to wake the one behind, which reads the queue, as does one that finds
 * its predecessor's version above 0 (SemaphoreTests, NoHerdTests,
 * SemaphoreExclusionProcessTests).</li>
 * </ul>
 * <p>
 * Callbacks run on Curator's event thread and only send further background calls;
 * state changes under a {@link java.util.concurrent.locks.ReentrantLock}, so no
 * caller waits in a monitor.
 */
final class QueueAttempt extends AbstractHandOffAttempt {

	private static final Logger logger = LoggerFactory.getLogger(QueueAttempt.class);

	private final boolean tryOnce;

	// one instance, so that ZooKeeper keeps one children watch of ours however often it is set
	private final Watcher queueWatcher = (event) -> readQueue(true);

	/**
	 * Create an attempt.
	 * @param client the client
	 * @param path the lock path, parent of the queue
	 * @param rule how the queue is ordered and decided
	 * @param data the node data, or {@code null} for the client's default
	 * @param tryOnce whether to give up (and delete our node) when the lock is taken
	 * at the first look
	 * @param writerNode {@code null} for a sequential node in the queue; else the
	 * path of this thread's WRITE node on the same path: our node is then a plain
	 * ephemeral READ node sorted at its sequence, which holds as soon as it exists
	 * and the write node is touched
	 * @param writerSession with a write node, its session; else 0
	 * @param permits the permits of a SEMAPHORE, 1 for the other rules
	 */
	QueueAttempt(CuratorFramework client, String path, QueueRule rule, byte @Nullable [] data, boolean tryOnce,
			@Nullable String writerNode, long writerSession, int permits) {
		super(client, path, rule, data, (writerNode != null) ? readNodeAt(writerNode) : null, permits, writerNode,
				writerSession);
		this.tryOnce = tryOnce;
	}

	private static String readNodeAt(String writerNode) {
		return LockNodeNames.READ + QueueRule.WRITE.sequence(ZKPaths.getNodeFromPath(writerNode));
	}
	/**
	 * Read the queue; with {@code watchQueue}, also watch its children, as the first
	 * SEMAPHORE waiter does (a read with a watch is one operation, like one without).
	 */
	@Override
	void readQueue(boolean watchQueue) {
		this.watching = false;
		if (!isPending()) {
			return;
		}
		try {
			if (watchQueue) {
				this.client.getChildren()
					.usingWatcher(this.queueWatcher)
					.inBackground((c, event) -> queueRead(event, true))
					.forPath(this.path);
			}
			else {
				this.client.getChildren().inBackground((c, event) -> queueRead(event, false)).forPath(this.path);
			}
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	@Override
	void queueRead(CuratorEvent event, boolean queueWatched) {
		if (!Nodes.isOk(event)) {
			fail(Nodes.error(event));
			return;
		}
		String ourName;
		this.lock.lock();
		try {
			if (this.abandoned || this.result.isDone() || this.ourPath == null) {
				return;
			}
			ourName = ZKPaths.getNodeFromPath(this.ourPath);
		}
		finally {
			this.lock.unlock();
		}
		Stat stat = ourStat();
		if (stat == null) {
			// the owner of a node found again is being read, and the queue is read after it
			return;
		}
		List<String> queue = this.rule.sort(event.getChildren());
		int index = queue.indexOf(ourName);
		if (index < 0) {
			requeue(ourName, "vanished while waiting, with its session or deleted");
			return;
		}
		if (!isCurrentSession(stat.getEphemeralOwner())) {
			// still listed, as the server has not ended the old session yet: not ours, not even our place
			requeue(ourName, "belongs to an earlier session");
			return;
		}
		QueueRule.Wait next = this.rule.next(queue, index, this.permits);
		if (next.holds()) {
			held();
			return;
		}
		if (this.tryOnce) {
			this.client.removeWatchers();
			this.result.complete(null);
			release();
			return;
		}
		this.lock.lock();
		try {
			this.lastIndex = index;
			this.waited = true;
		}
		finally {
			this.lock.unlock();
		}
		if (next.wholeQueue()) {
			if (queueWatched) {
				this.watching = true;
			}
			else {
				readQueue(true);
			}
		}
		else {
			watch(ZKPaths.makePath(this.path, next.node()), next.deletionGrants());
		}
	}

	@Override
	void fail(Exception ex) {
		if (this.result.completeExceptionally(ex)) {
			logger.debug("Lock attempt at {} failed", this.path, ex);
			release();
		}
	}

}
