package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.core.Nodes.LockNode;

/**
 * The queue protocol: one {@link NodeAttempt} in a queue of ephemeral sequential
 * nodes, ordered and decided by a {@link QueueRule} (MUTEX, READ, WRITE and
 * SEMAPHORE), as Curator's {@code LockInternals} is driven by its
 * {@code LockInternalsDriver}. Every step is a background call or a watch, so no
 * thread waits in here; the steps, in order:
 * <ol>
 * <li><b>Join</b> ({@link #join()}): create our protected node, and send the first
 * read of the queue right behind the create without waiting for its answer.
 * ZooKeeper answers one session's requests in order, so that listing already shows
 * our node, and an uncontended attempt takes one round trip and three operations
 * (create, read, delete) in every mode. When it cannot be used (the create had to
 * make the parent first, or was retried after a connection loss) the queue is read
 * again once our node is known.</li>
 * <li><b>Own</b> ({@link #created}, {@link #readOwner}): a node that Curator's
 * protected mode found again after a connection loss comes without a stat; its
 * owner is read before it counts as ours, even as a place in the queue.</li>
 * <li><b>Decide</b> ({@link #readQueue}, {@link #queueRead}): read the queue, find
 * our place, and ask the rule whether we hold or what we wait for. A node missing
 * from the queue, or owned by an ended session, joins again at the end
 * ({@link #requeue}), as Curator's mutex does.</li>
 * <li><b>Wait</b> ({@link #watch}, {@link #woken}): watch the node ahead (or, for
 * the first SEMAPHORE waiter, the whole queue); when woken, read the queue again,
 * unless the deletion alone proves the hand-off (below).</li>
 * <li><b>Grant</b> ({@link #held}): confirm our node's owner and session; a READ
 * inside this thread's WRITE touches the write node first
 * ({@link #touchWriter}); a SEMAPHORE waiter promoted to holder wakes the one
 * behind it ({@link #wakeSuccessor}).</li>
 * <li><b>End</b> ({@link #abandon}, {@link #fail}, {@link #release}): delete our
 * node; {@link #removed()} completes once ZooKeeper confirmed it.</li>
 * </ol>
 * <h2>The hand-off and its invariant</h2>
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
 * session; a READ at the write node of an ended session fails; a watch whose read
 * Curator sent again on a new session reads the queue, and the old node, still
 * listed while the server keeps its session, loses its place at once
 * (SessionOwnershipTests, SessionExpiryWhileHoldingTests).</li>
 * <li>{@code minHold}: a released holder's node stays until its minimum hold ends,
 * and still counts as the holder (MinHoldTests).</li>
 * <li>SEMAPHORE: no hand-off by deletion; a waiter promoted to holder writes its
 * data once to wake the one behind, which reads the queue, as does one that finds
 * its predecessor's version above 0 (SemaphoreTests, NoHerdTests,
 * SemaphoreExclusionProcessTests).</li>
 * </ul>
 * <h2>Threads</h2>
 * Callbacks run on Curator's event thread and only send further background calls.
 * State changes under a {@link ReentrantLock} rather than a monitor, so that a
 * virtual thread abandoning an attempt never blocks in one; the lock is never held
 * across a call to ZooKeeper or a completion of {@link #result}.
 */
final class QueueAttempt implements NodeAttempt {

	private static final Logger logger = LoggerFactory.getLogger(QueueAttempt.class);

	private final WatcherRemoveCuratorFramework client;

	private final String path;

	private final QueueRule rule;

	private final int permits;

	private final byte @Nullable [] data;

	private final boolean tryOnce;

	// a READ inside this thread's WRITE: the write node's path and session, and our plain node's name
	private final @Nullable String writerNode;

	private final long writerSession;

	private final @Nullable String fixedName;

	private final CompletableFuture<LockNode> result = new CompletableFuture<>();

	private final CompletableFuture<Void> removed = new CompletableFuture<>();

	private final ReentrantLock lock = new ReentrantLock();

	// one instance, so that ZooKeeper keeps one children watch of ours however often it is set
	private final Watcher queueWatcher = (event) -> readQueue(true);

	private volatile boolean watching;

	private volatile boolean answered;

	// under the lock from here on
	private boolean abandoned;

	private @Nullable String ourPath;

	private @Nullable Stat ourStat;

	// the read sent behind the create is still to come
	private boolean firstReadPending;

	// the node whose deletion alone makes ours hold, while we watch it
	private @Nullable String handOffFrom;

	// counts the node watches set: only the newest one acts
	private int watches;

	// our place at the last read of the queue, or -1
	private int lastIndex = -1;

	// whether a SEMAPHORE node waited: once it holds, it wakes the waiter behind it
	private boolean waited;

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
		this.client = client.newWatcherRemoveCuratorFramework();
		this.path = path;
		this.rule = rule;
		this.permits = permits;
		this.data = data;
		this.tryOnce = tryOnce;
		this.writerNode = writerNode;
		this.writerSession = writerSession;
		this.fixedName = (writerNode != null) ? readNodeAt(writerNode) : null;
	}

	private static String readNodeAt(String writerNode) {
		return LockNodeNames.READ + QueueRule.WRITE.sequence(ZKPaths.getNodeFromPath(writerNode));
	}

	@Override
	public CompletableFuture<LockNode> start() {
		join();
		return this.result;
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
	public @Nullable String waitingNode() {
		this.lock.lock();
		try {
			return (!this.abandoned && !this.result.isDone()) ? this.ourPath : null;
		}
		finally {
			this.lock.unlock();
		}
	}

	// ---- Join: create our node, with the first read of the queue right behind it

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
	 * Read the owner of a node found again by protected mode. Curator finds it only
	 * within the session that sent the create, but that session may have ended
	 * since; the queue read that follows checks it.
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
	 * Our node is gone, or belongs to a session that is no longer ours: it can
	 * neither hold nor keep our place, so join the queue again, at its end, with a
	 * node of the current session. The deadline of the acquisition still applies.
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
			this.handOffFrom = null;
			this.lastIndex = -1;
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

	// ---- Decide: read the queue and ask the rule

	/**
	 * Read the queue; with {@code watchQueue}, also watch its children, as the first
	 * SEMAPHORE waiter does (a read with a watch is one operation, like one without).
	 */
	private void readQueue(boolean watchQueue) {
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

	/**
	 * Decide on a read of the queue.
	 * @param event the read
	 * @param queueWatched whether the read set a watch on the queue's children
	 */
	private void queueRead(CuratorEvent event, boolean queueWatched) {
		if (!Nodes.isOk(event)) {
			fail(Nodes.error(event));
			return;
		}
		String ourName;
		Stat stat;
		this.lock.lock();
		try {
			if (this.abandoned || this.result.isDone() || this.ourPath == null) {
				return;
			}
			ourName = ZKPaths.getNodeFromPath(this.ourPath);
			stat = this.ourStat;
		}
		finally {
			this.lock.unlock();
		}
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
		if (!Nodes.isCurrentSession(this.client, stat.getEphemeralOwner())) {
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

	// ---- Wait: watch the node ahead, and hold on its deletion when the last read proved it

	/**
	 * Watch the node we wait for. getData rather than exists: a watch on a node that
	 * is gone already is not left behind. A SEMAPHORE waiter's predecessor that was
	 * promoted meanwhile has written its data once (version above 0): read the queue
	 * again, as its signal came before our watch.
	 */
	private void watch(String blocker, boolean deletionGrants) {
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
				else if (Nodes.isOk(event) && !ourNodeIsOfThisSession()) {
					// the session ended while this read was in flight, and Curator sent it again on the new one: no
					// watcher heard the expiry, so the old node would keep its place until the node ahead goes
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
		if (handOff && stat != null && Nodes.isCurrentSession(this.client, stat.getEphemeralOwner())) {
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

	// ---- Grant: our node holds once its owner and session are confirmed

	private void held() {
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
				fail(Nodes.asException(ex));
			}
			else if (!Nodes.isCurrentSession(this.client, held.session())) {
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
	private void writeOurData(String nodePath, BackgroundCallback callback) throws Exception {
		if (this.data != null) {
			this.client.setData().inBackground(callback).forPath(nodePath, this.data);
		}
		else {
			this.client.setData().inBackground(callback).forPath(nodePath);
		}
	}

	// ---- End: give up, fail or release, and delete our node

	@Override
	public void abandon() {
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
		// deletes our node now, or created() does once its creation is confirmed
		release();
	}

	private void fail(Exception ex) {
		if (this.result.completeExceptionally(ex)) {
			logger.debug("Lock attempt at {} failed", this.path, ex);
			release();
		}
	}

	// a queue node is deleted whether or not the hold was sound: nothing is passed on
	@Override
	public CompletableFuture<Void> release(boolean sound) {
		return release();
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
		// stop watching, and complete removed() once ZooKeeper confirmed the deletion
		this.client.removeWatchers();
		if (toDelete == null) {
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<Void> deleted = Nodes.delete(this.client, toDelete);
		deleted.whenComplete((ignored, ex) -> {
			if (ex != null) {
				this.removed.completeExceptionally(ex);
			}
			else {
				this.removed.complete(null);
			}
		});
		return deleted;
	}

	private boolean isPending() {
		return waitingNode() != null;
	}

	// Whether our node is of the client's current session: only such a node can hold or keep a place in the queue
	private boolean ourNodeIsOfThisSession() {
		Stat stat;
		this.lock.lock();
		try {
			stat = this.ourStat;
		}
		finally {
			this.lock.unlock();
		}
		return stat != null && Nodes.isCurrentSession(this.client, stat.getEphemeralOwner());
	}

}
