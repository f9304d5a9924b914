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

import dev.zklock.LockException;

/**
 * A {@link NodeAttempt} in a queue of ephemeral sequential nodes, ordered and
 * decided by a {@link QueueRule}: MUTEX, READ and WRITE. It creates a protected
 * node, reads the queue, and either holds or watches the node the rule names,
 * reading the queue again when that node goes.
 * <p>
 * The first read of the queue is sent right behind the create, without waiting
 * for its answer: ZooKeeper answers one session's requests in order, so that
 * listing already shows our node and an uncontended attempt takes one round trip.
 * When it cannot be used (the create had to make the parent first, or was retried
 * after a connection loss) the queue is read again once our node is known.
 * Callbacks run on Curator's event thread and only send further background calls;
 * state changes under a {@link ReentrantLock}, so no caller waits in a monitor.
 */
final class QueueAttempt extends AbstractNodeAttempt {

	private static final Logger logger = LoggerFactory.getLogger(QueueAttempt.class);

	private final String path;

	private final QueueRule rule;

	private final byte @Nullable [] data;

	private final boolean tryOnce;

	private final @Nullable String fixedName;

	private final long writerSession;

	private final Watcher watcher = (event) -> readQueue();

	private @Nullable String ourPath;

	private @Nullable Stat ourStat;

	private boolean firstReadPending;

	/**
	 * Create an attempt.
	 * @param client the client
	 * @param path the lock path, parent of the queue
	 * @param rule how the queue is ordered and decided
	 * @param data the node data, or {@code null} for the client's default
	 * @param tryOnce whether to give up (and delete our node) when the lock is taken
	 * at the first look
	 * @param fixedName {@code null} for a sequential node in the queue; else the
	 * name of a plain ephemeral node that holds as soon as it exists (a READ node of
	 * the WRITE holder, sorted at its write node)
	 * @param writerSession with a fixed name, the session of that write node; else 0
	 */
	QueueAttempt(CuratorFramework client, String path, QueueRule rule, byte @Nullable [] data, boolean tryOnce,
			@Nullable String fixedName, long writerSession) {
		super(client);
		this.path = path;
		this.rule = rule;
		this.data = data;
		this.tryOnce = tryOnce;
		this.fixedName = fixedName;
		this.writerSession = writerSession;
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
			String name = sequential ? this.rule.nodeName() : this.fixedName;
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
	private void requeue(String ourName, String why) {
		String old;
		this.lock.lock();
		try {
			if (this.abandoned || this.result.isDone() || this.ourPath == null) {
				return;
			}
			old = this.ourPath;
			this.ourPath = null;
			this.ourStat = null;
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

	@Override
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
				readQueue();
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
			queueRead(event);
		}
		else {
			readQueue();
		}
	}

	private void created(CuratorEvent event) {
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
			readQueue();
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
					readQueue();
				}
			}).forPath(nodePath);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void readQueue() {
		this.watching = false;
		if (!isPending()) {
			return;
		}
		try {
			this.client.getChildren().inBackground((c, event) -> queueRead(event)).forPath(this.path);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void queueRead(CuratorEvent event) {
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
		String blocker = this.rule.blocker(queue, index);
		if (blocker == null) {
			held();
		}
		else if (this.tryOnce) {
			this.client.removeWatchers();
			this.result.complete(null);
			release();
		}
		else {
			watch(ZKPaths.makePath(this.path, blocker));
		}
	}

	// getData rather than exists: a watch on a node that is gone already is not left behind
	private void watch(String blocker) {
		try {
			this.client.getData().usingWatcher(this.watcher).inBackground((c, event) -> {
				if (Nodes.isOk(event)) {
					this.watching = true;
				}
				else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
					readQueue();
				}
				else {
					fail(Nodes.error(event));
				}
			}).forPath(blocker);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void held() {
		String nodePath;
		Stat stat;
		this.lock.lock();
		try {
			nodePath = this.ourPath;
			stat = this.ourStat;
		}
		finally {
			this.lock.unlock();
		}
		if (nodePath == null) {
			return;
		}
		CompletableFuture<LockNode> node = new CompletableFuture<>();
		node.whenComplete((held, ex) -> {
			if (ex != null) {
				fail(asException(ex));
			}
			else if (!isCurrentSession(held.session())) {
				// the session ended between the queue read and now
				requeue(ZKPaths.getNodeFromPath(nodePath), "belongs to an earlier session");
			}
			else if (this.fixedName != null && held.session() != this.writerSession) {
				// the WRITE this READ sorts at went with an earlier session: it vouches for nothing now
				fail(new LockException("Lock node " + ZKPaths.getNodeFromPath(nodePath) + " under " + this.path
						+ " was to be a READ inside this thread's WRITE lock, but that WRITE lock was lost with its "
						+ "ZooKeeper session meanwhile; release the WRITE lock and take the locks again"));
			}
			else {
				this.result.complete(held);
			}
		});
		Nodes.resolve(this.client, nodePath, stat, node);
	}

	private @Nullable Stat ourStat() {
		this.lock.lock();
		try {
			return this.ourStat;
		}
		finally {
			this.lock.unlock();
		}
	}

	private boolean isPending() {
		this.lock.lock();
		try {
			return !this.abandoned && !this.result.isDone() && this.ourPath != null;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void fail(Exception ex) {
		if (this.result.completeExceptionally(ex)) {
			logger.debug("Lock attempt at {} failed", this.path, ex);
			release();
		}
	}

}
