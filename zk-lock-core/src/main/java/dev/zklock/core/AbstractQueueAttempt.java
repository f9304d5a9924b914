package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link QueueAttempt} keeps a place in its queue: it creates its protected
 * node with the first read of the queue sent right behind the create, reads the
 * owner of a node Curator found again after a connection loss, joins the queue
 * again when its node is gone or belongs to an ended session, and deletes its node
 * on release. What to make of a read of the queue, and how to wait, is the
 * subclass's.
 * <p>
 * The first read of the queue is sent right behind the create, without waiting
 * for its answer: ZooKeeper answers one session's requests in order, so that
 * listing already shows our node and an uncontended attempt takes one round trip
 * and three operations (create, read, delete) in every mode. When it cannot be
 * used (the create had to make the parent first, or was retried after a
 * connection loss) the queue is read again once our node is known.
 */
abstract class AbstractQueueAttempt extends AbstractNodeAttempt {

	private static final Logger logger = LoggerFactory.getLogger(AbstractQueueAttempt.class);

	final String path;

	final QueueRule rule;

	final int permits;

	final byte @Nullable [] data;

	final @Nullable String fixedName;

	// under the lock
	private boolean firstReadPending;

	AbstractQueueAttempt(CuratorFramework client, String path, QueueRule rule, byte @Nullable [] data,
			@Nullable String fixedName, int permits) {
		super(client);
		this.path = path;
		this.rule = rule;
		this.permits = permits;
		this.data = data;
		this.fixedName = fixedName;
	}

	@Override
	public CompletableFuture<LockNode> start() {
		join();
		return this.result;
	}

	// Create our node and, for a queue node, send the first read right behind it
	private void join() {
		boolean sequential = this.fixedName == null;
		this.lock.lock();
		try {
			this.firstReadPending = sequential;
		}
		finally {
			this.lock.unlock();
		}
		try {
			String name = sequential ? this.rule.nodeName(this.permits) : this.fixedName;
			Nodes.create(this.client, ZKPaths.makePath(this.path, name),
					sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL, this.data,
					(c, event) -> created(event));
			if (sequential) {
				readQueueBehindCreate();
			}
		}
		catch (Exception ex) {
			this.removed.complete(null);
			fail(ex);
		}
	}

	/**
	 * Our node is gone, or belongs to a session that is no longer ours: it can
	 * neither hold nor keep our place, so join the queue again, at its end, with a
	 * node of the current session, as Curator's mutex does. The deadline of the
	 * acquisition still applies.
	 */
	final void requeue(String ourName, String why) {
		String old;
		this.lock.lock();
		try {
			if (this.abandoned || this.result.isDone() || this.ourPath == null) {
				return;
			}
			old = this.ourPath;
			this.ourPath = null;
			this.ourStat = null;
			forgetWaiting();
		}
		finally {
			this.lock.unlock();
		}
		logger.debug("Lock node {} under {} {}; joining the queue again", ourName, this.path, why);
		this.client.removeWatchers();
		// a node of an expired session is gone or about to go; deleting it spares the queue behind it the wait
		Nodes.delete(this.client, old);
		join();
	}

	private void readQueueBehindCreate() {
		try {
			this.client.getChildren().inBackground((c, event) -> firstQueueRead(event)).forPath(this.path);
		}
		catch (Exception ex) {
			// read the queue once the create is answered instead
			boolean created;
			this.lock.lock();
			try {
				this.firstReadPending = false;
				created = this.ourPath != null;
			}
			finally {
				this.lock.unlock();
			}
			if (created) {
				readQueue(false);
			}
		}
	}

	// The listing sent behind the create: used when it shows our node, else the queue is read again
	private void firstQueueRead(CuratorEvent event) {
		String ourName;
		this.lock.lock();
		try {
			this.firstReadPending = false;
			if (this.ourPath == null) {
				// created() has not seen our node yet and reads the queue itself
				return;
			}
			ourName = ZKPaths.getNodeFromPath(this.ourPath);
		}
		finally {
			this.lock.unlock();
		}
		if (Nodes.isOk(event) && event.getChildren() != null && event.getChildren().contains(ourName)) {
			queueRead(event, false);
		}
		else {
			readQueue(false);
		}
	}

	private void created(CuratorEvent event) {
		this.answered = true;
		if (!Nodes.isOk(event)) {
			this.removed.complete(null);
			fail(Nodes.error(event));
			return;
		}
		boolean abandonedMeanwhile;
		boolean firstReadPending;
		String created = event.getName();
		Stat stat = event.getStat();
		boolean ownerKnown = stat != null && stat.getCzxid() != 0;
		this.lock.lock();
		try {
			this.ourPath = created;
			this.ourStat = ownerKnown ? stat : null;
			abandonedMeanwhile = this.abandoned;
			firstReadPending = this.firstReadPending;
		}
		finally {
			this.lock.unlock();
		}
		if (abandonedMeanwhile) {
			release();
		}
		else if (!ownerKnown) {
			readOwner(created);
		}
		else if (this.fixedName != null) {
			held();
		}
		else if (!firstReadPending) {
			readQueue(false);
		}
	}

	/**
	 * A node found again by protected mode after a connection loss comes without a
	 * stat: read its owner before it counts as ours, even as a place in the queue.
	 * Curator finds it only within the session that sent the create, but that
	 * session may have ended since; the queue read that follows checks it.
	 */
	private void readOwner(String nodePath) {
		try {
			this.client.checkExists().inBackground((c, event) -> {
				Stat stat = event.getStat();
				boolean gone = Nodes.isOk(event) || event.getResultCode() == KeeperException.Code.NONODE.intValue();
				if (stat == null && gone) {
					requeue(ZKPaths.getNodeFromPath(nodePath), "vanished before its owner was read");
					return;
				}
				if (stat == null) {
					fail(Nodes.error(event));
					return;
				}
				this.lock.lock();
				try {
					if (!nodePath.equals(this.ourPath)) {
						return;
					}
					this.ourStat = stat;
				}
				finally {
					this.lock.unlock();
				}
				if (this.fixedName != null) {
					held();
				}
				else {
					readQueue(false);
				}
			}).forPath(nodePath);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	/**
	 * Read the queue; with {@code watchQueue}, also watch its children.
	 */
	abstract void readQueue(boolean watchQueue);

	/**
	 * Decide on a read of the queue.
	 * @param event the read
	 * @param queueWatched whether the read set a watch on the queue's children
	 */
	abstract void queueRead(CuratorEvent event, boolean queueWatched);

	/**
	 * Our node holds: complete the attempt once its owner is confirmed.
	 */
	abstract void held();

	/**
	 * Fail the attempt and delete our node.
	 */
	abstract void fail(Exception ex);

	/**
	 * Forget what the waiting knew of the old node, under the lock, before joining
	 * again.
	 */
	abstract void forgetWaiting();

}
