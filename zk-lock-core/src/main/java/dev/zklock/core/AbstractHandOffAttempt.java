package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;

/**
 * How a waiting {@link QueueAttempt} becomes the holder: it watches the node it
 * waits for, and holds on that node's deletion without reading the queue again
 * when its last read proved the hand-off ({@link QueueAttempt} says why that is
 * sound); then the grant: the owner of our node confirmed and its session checked,
 * for a READ inside this thread's WRITE the write node touched first, and for a
 * SEMAPHORE waiter promoted to a holder the waiter behind it woken.
 */
abstract class AbstractHandOffAttempt extends AbstractQueueAttempt {

	// one logger for every layer of the attempt
	private static final Logger logger = LoggerFactory.getLogger(QueueAttempt.class);

	private final @Nullable String writerNode;

	private final long writerSession;

	// the node whose deletion alone makes ours hold, while we watch it
	private @Nullable String handOffFrom;

	// counts the node watches set: only the newest one acts
	private int watches;

	// under the lock: our place at the last read of the queue, or -1
	int lastIndex = -1;

	// under the lock: whether a SEMAPHORE node waited: once it holds, it wakes the waiter behind it
	boolean waited;

	AbstractHandOffAttempt(CuratorFramework client, String path, QueueRule rule, byte @Nullable [] data,
			@Nullable String fixedName, int permits, @Nullable String writerNode, long writerSession) {
		super(client, path, rule, data, fixedName, permits);
		this.writerNode = writerNode;
		this.writerSession = writerSession;
	}

	@Override
	void forgetWaiting() {
		this.handOffFrom = null;
		this.lastIndex = -1;
	}

	/**
	 * Watch the node we wait for. getData rather than exists: a watch on a node that
	 * is gone already is not left behind. A SEMAPHORE waiter's predecessor that was
	 * promoted meanwhile has written its data once (version above 0): read the queue
	 * again, as its signal came before our watch.
	 */
	final void watch(String blocker, boolean deletionGrants) {
		int generation;
		this.lock.lock();
		try {
			this.handOffFrom = deletionGrants ? blocker : null;
			generation = ++this.watches;
		}
		finally {
			this.lock.unlock();
		}
		Watcher woken = (event) -> woken(event, blocker, generation);
		try {
			this.client.getData().usingWatcher(woken).inBackground((c, event) -> {
				Stat stat = event.getStat();
				boolean touched = stat != null && stat.getVersion() > 0;
				if (Nodes.isOk(event) && this.rule == QueueRule.SEMAPHORE && touched) {
					readQueue(expectsFront());
				}
				else if (Nodes.isOk(event)) {
					if (touched) {
						// a writer that placed a READ at its sequence: its deletion proves nothing
						noHandOff(generation);
					}
					this.watching = true;
				}
				else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
					if (mayHaveReadAtItsSequence(blocker)) {
						noHandOff(generation);
					}
					// gone between our read and the watch: as good as a deletion reported by it
					woken(new WatchedEvent(Watcher.Event.EventType.NodeDeleted,
							Watcher.Event.KeeperState.SyncConnected, blocker), blocker, generation);
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

	/**
	 * The node we wait for changed, or the connection did. Its deletion makes ours
	 * hold without reading the queue again when the last read proved it (see the
	 * class comment); anything else reads the queue again.
	 */
	private void woken(WatchedEvent event, String blocker, int generation) {
		boolean handOff;
		Stat stat;
		this.lock.lock();
		try {
			if (generation != this.watches) {
				// an earlier watch: the newest one, set after it, reports for itself
				return;
			}
			handOff = event.getType() == Watcher.Event.EventType.NodeDeleted && blocker.equals(this.handOffFrom)
					&& !this.abandoned && !this.result.isDone() && this.ourPath != null;
			this.handOffFrom = null;
			stat = this.ourStat;
		}
		finally {
			this.lock.unlock();
		}
		if (handOff && stat != null && isCurrentSession(stat.getEphemeralOwner())) {
			this.watching = false;
			logger.trace("Lock node ahead of ours under {} deleted: held without reading the queue again", this.path);
			held();
		}
		else {
			readQueue(expectsFront());
		}
	}

	private void noHandOff(int generation) {
		this.lock.lock();
		try {
			if (generation == this.watches) {
				this.handOffFrom = null;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	// A write node gone before our watch was set may have had a READ placed at its sequence meanwhile
	private boolean mayHaveReadAtItsSequence(String blocker) {
		return this.rule == QueueRule.WRITE && ZKPaths.getNodeFromPath(blocker).contains(LockNodeNames.WRITE);
	}

	// A SEMAPHORE waiter at most one place behind the first waiter reads and watches the queue at once
	private boolean expectsFront() {
		this.lock.lock();
		try {
			return this.rule == QueueRule.SEMAPHORE && this.lastIndex >= 0 && this.lastIndex <= this.permits + 1;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	void held() {
		String nodePath;
		Stat stat;
		boolean promoted;
		this.lock.lock();
		try {
			nodePath = this.ourPath;
			stat = this.ourStat;
			promoted = this.waited && this.rule == QueueRule.SEMAPHORE;
		}
		finally {
			this.lock.unlock();
		}
		if (nodePath == null) {
			return;
		}
		if (promoted) {
			wakeSuccessor(nodePath);
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
			else if (this.writerNode != null && held.session() != this.writerSession) {
				writerLost(nodePath);
			}
			else if (this.writerNode != null) {
				touchWriter(this.writerNode, nodePath, held);
			}
			else {
				this.result.complete(held);
			}
		});
		Nodes.resolve(this.client, nodePath, stat, node);
	}

	/**
	 * Our READ node sorts at this thread's write node, ahead of the waiters behind
	 * it, which may have read the queue before it existed. Writing the write node's
	 * data once (same owner, same bytes) tells them: a waiter watching it wakes and
	 * reads the queue again, and one that sets its watch later sees a version above
	 * 0 and gives up the hand-off without a re-read. Only then does the READ hold.
	 */
	private void touchWriter(String writer, String nodePath, LockNode held) {
		try {
			writeOurData(writer, (c, event) -> {
				if (Nodes.isOk(event)) {
					this.result.complete(held);
				}
				else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
					writerLost(nodePath);
				}
				else {
					fail(Nodes.error(event));
				}
			});
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	// the WRITE this READ sorts at went with an earlier session, or is gone: it vouches for nothing now
	private void writerLost(String nodePath) {
		fail(new LockException("Lock node " + ZKPaths.getNodeFromPath(nodePath) + " under " + this.path
				+ " was to be a READ inside this thread's WRITE lock, but that WRITE lock was lost with its "
				+ "ZooKeeper session meanwhile; release the WRITE lock and take the locks again"));
	}

	/**
	 * A SEMAPHORE waiter promoted to a holder keeps its node, so the waiter behind,
	 * which watches it, would not learn that it moved up: writing our data once
	 * (same bytes) wakes it. When the write is lost, the waiter wakes when our node
	 * goes instead.
	 */
	private void wakeSuccessor(String nodePath) {
		try {
			writeOurData(nodePath, (c, event) -> {
			});
		}
		catch (Exception ex) {
			logger.debug("Could not wake the waiter behind lock node {}; it wakes when the node goes", nodePath, ex);
		}
	}

	// Our owner data once more, or the client's default as at the create: a signal that changes no bytes
	private void writeOurData(String path, BackgroundCallback callback) throws Exception {
		if (this.data != null) {
			this.client.setData().inBackground(callback).forPath(path, this.data);
		}
		else {
			this.client.setData().inBackground(callback).forPath(path);
		}
	}

}
