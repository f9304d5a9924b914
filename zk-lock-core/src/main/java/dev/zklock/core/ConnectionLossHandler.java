package dev.zklock.core;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockLossReason;
import dev.zklock.LockState;
import dev.zklock.core.Nodes.LockNode;

/**
 * Keeps the states in a {@link LockRegistry} in line with the Curator connection.
 * When the client's error policy counts SUSPENDED as an error (Curator's standard
 * policy), a suspension puts held locks in doubt; a lost session loses them for
 * good. On reconnection, each lock still held or in doubt is checked: same
 * session and the node still there means held; otherwise lost, as the
 * {@link LossAnnouncer} tells. Releases that failed are confirmed the same way.
 * The checks are background calls, all sent at once: one that fails stops no
 * other, and what could not be checked is checked again while connected, after a
 * delay that doubles up to {@value #RETRY_MAX_MILLIS} ms, rather than at a next
 * reconnection that may never come. A connection event since a check was sent
 * leaves its answer to the checks of that event. Runs on one thread of its own,
 * so that listeners never run on Curator's event thread.
 */
final class ConnectionLossHandler implements ConnectionStateListener {

	private static final Logger logger = LoggerFactory.getLogger(ConnectionLossHandler.class);

	private static final Set<LockState> HELD = EnumSet.of(LockState.HELD);

	private static final Set<LockState> IN_DOUBT = EnumSet.of(LockState.IN_DOUBT);

	private static final Set<LockState> RELEASING = EnumSet.of(LockState.RELEASING);

	/** The delay before a failed check is tried again the first time. */
	static final long RETRY_MIN_MILLIS = 100;

	/** The longest delay between two tries of a failed check. */
	static final long RETRY_MAX_MILLIS = 5_000;

	private final CuratorFramework client;

	private final LockRegistry registry;

	private final LossAnnouncer losses;

	private final ScheduledThreadPoolExecutor executor;

	private final AtomicLong lossEpoch = new AtomicLong();

	private volatile boolean connected;

	// connection events seen; on the handler's thread only. A check sent before the last one is left to its checks
	private long connectionEpoch;

	ConnectionLossHandler(CuratorFramework client, LockRegistry registry, LossAnnouncer losses) {
		this.client = client;
		this.registry = registry;
		this.losses = losses;
		this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "zk-lock-connection");
			thread.setDaemon(true);
			return thread;
		});
		// at close the checks due later go; what is queued to run now stays (see close)
		this.executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	void start() {
		this.client.getConnectionStateListenable().addListener(this, this.executor);
		this.connected = this.client.getZookeeperClient().isConnected();
	}

	void close() {
		this.client.getConnectionStateListenable().removeListener(this);
		// not shutdownNow: a revocation queued before the close would be dropped, and its holder would keep a lock
		// whose node is gone, its listeners never told
		this.executor.shutdown();
	}

	/**
	 * The number of session losses seen so far, recorded by an acquisition before it
	 * starts.
	 */
	long lossEpoch() {
		return this.lossEpoch.get();
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		switch (newState) {
			case SUSPENDED -> suspended();
			case LOST -> lost();
			case RECONNECTED -> reconnected();
			case CONNECTED -> this.connected = true;
			default -> {
			}
		}
	}

	/**
	 * A lock was just acquired: catch up with connection events that arrived while
	 * it was being acquired.
	 * @param entry the entry, just marked held
	 */
	void acquired(LockRegistry.Entry entry) {
		if (entry.epoch() != this.lossEpoch.get() && !isCurrentSession(entry.node())) {
			lose(entry, LockLossReason.SESSION_LOST);
			return;
		}
		// the flag follows the events on this handler's thread, which may not have seen CONNECTED yet: a grant came
		// over a working connection, and a SUSPENDED still queued puts the lock in doubt when it is handled
		if (!this.connected && !this.client.getZookeeperClient().isConnected() && suspensionIsError()) {
			this.registry.transition(entry, HELD, LockState.IN_DOUBT);
		}
	}

	/**
	 * A release failed: confirm it now if the client is connected, else on
	 * reconnection or session loss.
	 */
	void releaseFailed() {
		boolean accepted = execute(() -> {
			if (this.connected) {
				check(this.connectionEpoch, List.of(), this.registry.entries(RELEASING), 0);
			}
		});
		if (!accepted) {
			logger.debug("Lock manager closed; not confirming a failed release");
		}
	}

	/**
	 * Run a task on the handler's thread, never on the caller's: for work such as a
	 * confirmation round trip that must not slow down a lock check.
	 * @param task the task
	 * @return whether it was accepted (not after close)
	 */
	boolean execute(Runnable task) {
		try {
			this.executor.execute(task);
			return true;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
	}

	/**
	 * A look at the node (a check after a pause, a revocation watch) found it gone,
	 * or no longer ours. When the client is on another session than the node's by
	 * now, the node went with its session: Curator's LOST, or the check of the
	 * RECONNECTED that follows, both queued on this handler's thread, loses the hold
	 * with the reason that says so; the look only raced ahead of them.
	 * @param entry the entry, held until now
	 */
	void nodeGone(LockRegistry.Entry entry) {
		if (!isCurrentSession(entry.node())) {
			logger.debug("Lock '{}' key '{}' node {} is gone with its session; the connection events say so",
					entry.name(), LockPaths.abbreviate(entry.key()), entry.node().path());
			return;
		}
		lose(entry, LockLossReason.NODE_DELETED);
	}

	/**
	 * The application closed the client while locks were held: the session, and
	 * every node of this client with it, ended at the close, and Curator reports no
	 * event for it. Whichever part of the engine first finds the client closed (a
	 * revocation watch, a release, the end of a {@code minHold}) calls this: every
	 * hold still held or in doubt is lost with reason {@code SESSION_LOST}, each
	 * announced once, and a lock kept for its {@code minHold} just ends.
	 */
	void clientClosed() {
		List<LockRegistry.Entry> owned = this.registry.entries(LockRegistry.Entry.OWNED);
		if (owned.isEmpty()) {
			return;
		}
		logger.warn("The Curator client was closed while this process held {} lock(s): their nodes went with the "
				+ "client's session at the close, when another process could take them while this one's work went "
				+ "on. Close the client only after the work holding its locks has ended", owned.size());
		for (LockRegistry.Entry entry : owned) {
			lose(entry, LockLossReason.SESSION_LOST);
		}
	}

	private void suspended() {
		this.connected = false;
		this.connectionEpoch++;
		if (!suspensionIsError()) {
			return;
		}
		for (LockRegistry.Entry entry : this.registry.entries(HELD)) {
			if (this.registry.transition(entry, HELD, LockState.IN_DOUBT) == null) {
				continue;
			}
			if (entry.isLingering()) {
				// its work is done: nothing to warn about
				logger.debug("ZooKeeper connection suspended: lock '{}' key '{}', kept for its minHold after its work "
						+ "finished, is in doubt", entry.name(), LockPaths.abbreviate(entry.key()));
			}
			else {
				logger.warn("ZooKeeper connection suspended: lock '{}' key '{}' held by thread '{}' is in doubt until "
						+ "the client reconnects with the same session", entry.name(),
						LockPaths.abbreviate(entry.key()), entry.threadName());
			}
		}
	}

	private void lost() {
		this.connected = false;
		this.connectionEpoch++;
		this.lossEpoch.incrementAndGet();
		for (LockRegistry.Entry entry : this.registry.entries(LockRegistry.Entry.OWNED)) {
			lose(entry, LockLossReason.SESSION_LOST);
		}
		for (LockRegistry.Entry entry : this.registry.entries(RELEASING)) {
			// the node went with the session
			this.registry.remove(entry);
		}
	}

	private void reconnected() {
		this.connected = true;
		this.connectionEpoch++;
		check(this.connectionEpoch, this.registry.entries(LockRegistry.Entry.OWNED), this.registry.entries(RELEASING), 0);
	}

	/**
	 * On the handler's thread: check holds and confirm releases, all in the
	 * background at once; once every answer is in, what could not be checked is
	 * checked again later.
	 * @param epoch the connection epoch the checks are for
	 * @param holds holds to check
	 * @param releases failed releases to confirm
	 * @param attempt how many times these were tried before
	 */
	private void check(long epoch, List<LockRegistry.Entry> holds, List<LockRegistry.Entry> releases, int attempt) {
		long session = currentSession();
		if (session == 0) {
			retry(epoch, holds, releases, attempt);
			return;
		}
		// answers are taken on this thread, so these lists are only ever touched here
		List<LockRegistry.Entry> failedHolds = new ArrayList<>();
		List<LockRegistry.Entry> failedReleases = new ArrayList<>();
		List<CompletableFuture<Void>> answers = new ArrayList<>();
		for (LockRegistry.Entry entry : holds) {
			if (!LockRegistry.Entry.OWNED.contains(entry.state())) {
				// lost or released meanwhile
				continue;
			}
			LockNode node = entry.node();
			if (node.session() != session) {
				lose(entry, LockLossReason.SESSION_CHANGED);
				continue;
			}
			answers.add(send(entry, (callback) -> this.client.checkExists().inBackground(callback).forPath(node.path()),
					(event) -> checked(entry, node, session, epoch, event), failedHolds));
		}
		for (LockRegistry.Entry entry : releases) {
			if (entry.state() != LockState.RELEASING || entry.isRemoved()) {
				continue;
			}
			LockNode node = entry.node();
			if (node.session() != session) {
				// the node went with its session
				confirmed(entry);
				continue;
			}
			answers.add(send(entry,
					(callback) -> this.client.delete().guaranteed().inBackground(callback).forPath(node.path()),
					(event) -> deleted(entry, node, event), failedReleases));
		}
		CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).thenRun(() -> {
			if (!failedHolds.isEmpty() || !failedReleases.isEmpty()) {
				retry(epoch, failedHolds, failedReleases, attempt);
			}
		});
	}

	/**
	 * Send one background call; its answer is taken on the handler's thread.
	 * @return completes once answered, the entry added to the failures when the
	 * answer says it could not be checked
	 */
	private CompletableFuture<Void> send(LockRegistry.Entry entry, Call call, Answer answer, List<LockRegistry.Entry> failures) {
		CompletableFuture<Void> answered = new CompletableFuture<>();
		try {
			call.send((c, event) -> execute(() -> {
				if (!answer.settles(event)) {
					failures.add(entry);
				}
				answered.complete(null);
			}));
		}
		catch (Exception ex) {
			logger.debug("Could not check lock '{}' key '{}'; checking again", entry.name(),
					LockPaths.abbreviate(entry.key()), ex);
			failures.add(entry);
			answered.complete(null);
		}
		return answered;
	}

	// What could not be checked is checked again while connected; a connection event since leaves it to its checks
	private void retry(long epoch, List<LockRegistry.Entry> holds, List<LockRegistry.Entry> releases, int attempt) {
		if (epoch != this.connectionEpoch || !this.connected) {
			return;
		}
		long delay = Math.min(RETRY_MAX_MILLIS, RETRY_MIN_MILLIS << Math.min(attempt, 16));
		try {
			this.executor.schedule(() -> {
				if (epoch == this.connectionEpoch && this.connected) {
					check(epoch, holds, releases, attempt + 1);
				}
			}, delay, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Lock manager closed; not checking {} locks again", holds.size() + releases.size());
		}
	}

	// Whether the answer settles the hold: held again, or lost
	private boolean checked(LockRegistry.Entry entry, LockNode node, long session, long epoch, CuratorEvent event) {
		int code = event.getResultCode();
		Stat stat = event.getStat();
		if (code == KeeperException.Code.NONODE.intValue() || (code == KeeperException.Code.OK.intValue()
				&& (stat == null || stat.getEphemeralOwner() != session || stat.getCzxid() != node.czxid()))) {
			lose(entry, LockLossReason.NODE_DELETED);
			return true;
		}
		if (code != KeeperException.Code.OK.intValue()) {
			logger.debug("Could not check lock '{}' key '{}' node {} after reconnecting ({}); checking again",
					entry.name(), LockPaths.abbreviate(entry.key()), node.path(), KeeperException.Code.get(code));
			return false;
		}
		if (epoch != this.connectionEpoch) {
			// suspended again since it was sent: in doubt until the next reconnection checks it
			return true;
		}
		if (this.registry.transition(entry, IN_DOUBT, LockState.HELD) != null) {
			logger.info("ZooKeeper reconnected with the same session: lock '{}' key '{}' is held again by "
					+ "thread '{}'", entry.name(), LockPaths.abbreviate(entry.key()), entry.threadName());
		}
		return true;
	}

	// Whether the answer confirms the release
	private boolean deleted(LockRegistry.Entry entry, LockNode node, CuratorEvent event) {
		int code = event.getResultCode();
		if (code != KeeperException.Code.OK.intValue() && code != KeeperException.Code.NONODE.intValue()) {
			logger.debug("Could not confirm the release of lock '{}' key '{}' node {} ({}); trying again",
					entry.name(), LockPaths.abbreviate(entry.key()), node.path(), KeeperException.Code.get(code));
			return false;
		}
		confirmed(entry);
		return true;
	}

	private void confirmed(LockRegistry.Entry entry) {
		logger.debug("Release of lock '{}' key '{}' confirmed", entry.name(), LockPaths.abbreviate(entry.key()));
		this.registry.remove(entry);
	}

	private void lose(LockRegistry.Entry entry, LockLossReason reason) {
		this.losses.lose(entry, reason);
	}

	private boolean suspensionIsError() {
		return this.client.getConnectionStateErrorPolicy().isErrorState(ConnectionState.SUSPENDED);
	}

	private boolean isCurrentSession(LockNode node) {
		return node.session() == currentSession();
	}

	// 0 when it cannot be told
	private long currentSession() {
		try {
			return this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			logger.debug("Could not read the current ZooKeeper session", ex);
			return 0;
		}
	}

	/**
	 * A background call, sent with the callback that takes its answer.
	 */
	@FunctionalInterface
	private interface Call {

		void send(BackgroundCallback callback) throws Exception;

	}

	/**
	 * What an answer means, on the handler's thread.
	 */
	@FunctionalInterface
	private interface Answer {

		/**
		 * @return whether it settles the entry; {@code false} to check it again
		 */
		boolean settles(CuratorEvent event);

	}

}
