package dev.zklock.core;

import java.lang.invoke.MethodHandles;
import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.LockDeadlockException;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;
import dev.zklock.core.Nodes.LockNode;

/**
 * The deadlock detection of one engine: it tells each acquisition when its wait
 * is to be marked ({@link DeadlockDetectionSettings#after()} after its start) and
 * publishes every key waited for behind others past that mark as a
 * {@link PublishedWait}: a {@link WaitRecord} naming the waiter, its node and
 * what its thread holds. Waits shorter than the mark never reach it, so they cost
 * nothing; the acquisition ends its published wait when the wait ends, and
 * {@link #close()} ends those left.
 * <p>
 * While any wait is published it runs search rounds on the engine's timer: one as
 * soon as a record is created (the last record of a cycle sees every other one,
 * as ZooKeeper applied them before it), then periodically, after {@code after},
 * doubling up to {@value #MAX_BACKOFF} times {@code after}, from {@code after}
 * again at each new record. One round at a time, none while ZooKeeper is
 * unreachable; {@link CycleSearch} reads the snapshot within {@code min(after,
 * 5 s)}, the {@link WaitForGraph} is built on the timer's thread, and each local
 * wait found in a cycle is reported at DEBUG, naming the victim.
 * <p>
 * The verdict: a local wait that is its cycle's victim (the newest record) sends
 * one {@code multi} that checks every record and node of the cycle and deletes its
 * own record. Committed, the cycle stood at that zxid and nobody of it was judged
 * before (a victim's record goes in its own transaction), so at most one wait of a
 * cycle fails: {@link Acquisition#deadlocked} ends it with a
 * {@link LockDeadlockException}, and the {@link DeadlockAnnouncer} tells of it. A
 * member that is not the victim nudges the victim's record once (writes its data
 * back), which wakes the victim's instance into a round.
 */
final class DeadlockDetector implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(DeadlockDetector.class);

	static {
		// loaded with the detector, on the thread that builds the engine: the first waits marked at once would
		// otherwise load them together, and a virtual thread that waits for a class being loaded is pinned. Every
		// class a publish loads, not only Waiting: with it alone, 1,000 virtual threads were pinned loading WaitRecord
		try {
			for (Class<?> used : List.of(Waiting.class, WaitRecord.class, WaitRecord.Held.class, Party.class,
					LockRef.class, PublishedWait.class, ZKPaths.PathAndNode.class)) {
				MethodHandles.lookup().ensureInitialized(used);
			}
		}
		catch (IllegalAccessException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private static final String HOST = hostName();

	private static final long PID = ProcessHandle.current().pid();

	/** How many times {@code after} the period between rounds grows to. */
	static final int MAX_BACKOFF = 8;

	private static final long MAX_ROUND_NANOS = TimeUnit.SECONDS.toNanos(5);

	private final CuratorFramework client;

	private final String waitsPath;

	private final LockRegistry registry;

	private volatile DeadlockDetectionSettings settings = DeadlockDetectionSettings.DEFAULTS;

	private final AtomicLong marks = new AtomicLong();

	// the waits published and not ended: the local waits a round looks for, and what close() ends
	private final Set<PublishedWait> published = ConcurrentHashMap.newKeySet();

	private final EngineTimer timer;

	private final ZooKeeperReachability reachability;

	private final CycleSearch search;

	private final DeadlockAnnouncer announcer;

	// the victims of other instances nudged, each once while its record stands
	private final Set<String> nudged = ConcurrentHashMap.newKeySet();

	private final ReentrantLock lock = new ReentrantLock();

	// under the lock: a round reads or evaluates now
	private boolean roundInFlight;

	// under the lock: a change came during the round in flight, whose listing may have missed it
	private boolean roundAgain;

	// under the lock: the next periodic round
	private @Nullable ScheduledFuture<?> sweep;

	// under the lock: the delay before the next periodic round
	private long periodNanos;

	/**
	 * @param client the manager's client, whose session the records share with the
	 * waits' nodes
	 * @param waitsPath where the records go, {@code <base-path>/#waits}
	 * @param registry what each thread holds
	 * @param timer the engine's timer, which runs the rounds
	 * @param reachability whether ZooKeeper answers: no round while it does not
	 * @param announcer tells of the deadlocks ended here
	 */
	DeadlockDetector(CuratorFramework client, String waitsPath, LockRegistry registry, EngineTimer timer,
			ZooKeeperReachability reachability, DeadlockAnnouncer announcer) {
		this.client = client;
		this.waitsPath = waitsPath;
		this.registry = registry;
		this.timer = timer;
		this.reachability = reachability;
		this.search = new CycleSearch(client, waitsPath);
		this.announcer = announcer;
	}

	void setSettings(DeadlockDetectionSettings settings) {
		this.settings = settings;
	}

	DeadlockDetectionSettings settings() {
		return this.settings;
	}

	/**
	 * A key is waited for behind others past the mark: publish it, unless the waiter
	 * holds nothing, locally or remotely. Such a waiter can close no cycle: nobody
	 * waits for a lock it holds, and a waiter behind its node waits for what blocks
	 * that node already (every node ahead, for MUTEX and WRITE; the first permits,
	 * for SEMAPHORE), or, for a READ behind a waiting writer, for the READ holders
	 * ahead of it, which the {@link WaitForGraph} adds. So the graph loses no
	 * cycle without it. Were it published, every {@code @Leader} standby would keep
	 * a record, the many waiters of one hot key would pass the records a round reads
	 * ({@link CycleSearch#MAX_RECORDS}) and switch the search off, and one of them
	 * could be chosen as a victim whose end breaks nothing.
	 * @param waiting what is waited for, with which node, and what the acquisition
	 * took already
	 * @param victim ends the wait when a verdict chose it, telling whether it was
	 * still pending
	 * @return the published wait, its create sent, which the caller ends; {@code null}
	 * when there is nothing to publish while the wait keeps its node
	 */
	@Nullable PublishedWait publish(Waiting waiting, Predicate<LockDeadlockException> victim) {
		long count = this.marks.incrementAndGet();
		WaitRecord record = record(waiting);
		boolean bare = record.holds().isEmpty();
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '{}' key '{}' ({}) waited past the deadlock detection mark, node {}; mark {} of this "
					+ "engine{}", waiting.name(), LockPaths.abbreviate(waiting.key()), waiting.mode(), waiting.node(),
					count, bare ? "; not published: a waiter that holds nothing" : "");
		}
		if (bare) {
			return null;
		}
		PublishedWait wait = new PublishedWait(this.client, record, this.published::remove, this::searchSoon,
				victim);
		this.published.add(wait);
		wait.publish(this.waitsPath);
		return wait;
	}

	private WaitRecord record(Waiting waiting) {
		Thread owner = waiting.owner();
		Party party = new Party(this.settings.applicationName(), HOST, PID, session(),
				(owner != null) ? owner.getName() : "async");
		ZKPaths.PathAndNode node = ZKPaths.getPathAndNode(waiting.node());
		return new WaitRecord(party, (owner != null) ? owner.getId() : 0,
				new LockRef(waiting.name(), waiting.key(), waiting.mode()), waiting.permits(), node.getPath(),
				node.getNode(), waiting.local(), waiting.since(), holds(waiting), false);
	}

	// What the acquisition took, and for a thread what it holds besides, each node once
	private List<WaitRecord.Held> holds(Waiting waiting) {
		Map<String, WaitRecord.Held> holds = new LinkedHashMap<>();
		List<LockRegistry.Entry> entries = new ArrayList<>();
		waiting.taken().forEach((hold) -> entries.add(hold.entry()));
		Thread owner = waiting.owner();
		if (owner != null) {
			entries.addAll(this.registry.heldBy(owner));
		}
		for (LockRegistry.Entry entry : entries) {
			@Nullable LockNode node = entry.node;
			if (node != null) {
				holds.putIfAbsent(node.path(),
						new WaitRecord.Held(new LockRef(entry.name(), entry.key(), entry.mode()), node.path()));
			}
		}
		return List.copyOf(holds.values());
	}

	private long session() {
		try {
			return this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			// no session now: the record's create fails too, and the wait publishes again
			return 0;
		}
	}

	// A record was created: a round now, and the periodic ones from `after` again
	private void searchSoon() {
		this.lock.lock();
		try {
			this.periodNanos = afterNanos();
		}
		finally {
			this.lock.unlock();
		}
		onTimer(this::round);
	}

	private long afterNanos() {
		return LockEngine.cappedNanos(this.settings.after());
	}

	private void round() {
		this.lock.lock();
		try {
			if (this.published.isEmpty()) {
				return;
			}
			if (this.roundInFlight) {
				this.roundAgain = true;
				return;
			}
			this.roundInFlight = true;
			if (this.sweep != null) {
				// this round stands for the periodic one
				this.sweep.cancel(false);
				this.sweep = null;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (this.reachability.isUnreachable()) {
			roundDone();
			return;
		}
		this.search.read(this.timer, Math.min(afterNanos(), MAX_ROUND_NANOS)).whenCompleteAsync((snapshot, ex) -> {
			try {
				// a failed read was logged by the search; the next round reads again
				if (ex == null) {
					evaluate(snapshot);
				}
			}
			finally {
				roundDone();
			}
		}, this::onTimer);
	}

	private void roundDone() {
		boolean again;
		this.lock.lock();
		try {
			this.roundInFlight = false;
			again = this.roundAgain;
			this.roundAgain = false;
			if (!again && !this.published.isEmpty()) {
				this.sweep = this.timer.schedule(this::round, this.periodNanos, TimeUnit.NANOSECONDS);
				this.periodNanos = Math.min(this.periodNanos * 2, afterNanos() * MAX_BACKOFF);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (again) {
			onTimer(this::round);
		}
	}

	// On the timer's thread: the graph is never built on Curator's event thread
	private void onTimer(Runnable task) {
		try {
			this.timer.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// the engine closed: its waits ended, nothing is left to search for
		}
	}

	// Every local wait of the snapshot that is in a cycle is reported; no wait is ended (yet)
	private void evaluate(CycleSearch.Snapshot snapshot) {
		WaitForGraph graph = WaitForGraph.of(snapshot.waits(), snapshot.queues());
		Instant detectedAt = Instant.now();
		Set<String> local = new HashSet<>();
		this.published.forEach((wait) -> local.add(wait.path()));
		for (PublishedWait wait : this.published) {
			String path = wait.path();
			if (path == null) {
				continue;
			}
			graph.cycleOf(path).ifPresent((cycle) -> {
				LockDeadlock deadlock = graph.report(cycle, detectedAt);
				report(wait.record(), path, cycle, deadlock);
				if (cycle.victim().path().equals(path)) {
					judge(wait, path, graph.checks(cycle), deadlock);
				}
				else if (!local.contains(cycle.victim().path())) {
					nudge(cycle.victim());
				}
			});
		}
		this.nudged.retainAll(snapshot.waits().stream().map(WaitForGraph.Wait::path).toList());
	}

	// The verdict: one transaction that re-checks the cycle and deletes this wait's record
	private void judge(PublishedWait wait, String path, List<String> checks, LockDeadlock deadlock) {
		if (!wait.startVerdict()) {
			return;
		}
		List<CuratorOp> operations = new ArrayList<>(checks.size() + 1);
		try {
			for (String checked : checks) {
				operations.add(this.client.transactionOp().check().forPath(checked));
			}
			operations.add(this.client.transactionOp().delete().forPath(path));
			this.client.transaction()
				.inBackground((c, event) -> onTimer(() -> judged(wait, deadlock, event)))
				.forOperations(operations);
		}
		catch (Exception ex) {
			wait.verdictFailed(false);
			logger.debug("Lock '{}' key '{}': the deadlock verdict could not be sent", deadlock.victimWaitsFor().name(),
					LockPaths.abbreviate(deadlock.victimWaitsFor().key()), ex);
		}
	}

	private void judged(PublishedWait wait, LockDeadlock deadlock, CuratorEvent event) {
		LockRef waitsFor = deadlock.victimWaitsFor();
		if (!Nodes.isOk(event)) {
			KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
			// a check failed: the cycle changed, the next round looks again; a lost answer may hide a commit
			wait.verdictFailed(code == KeeperException.Code.CONNECTIONLOSS
					|| code == KeeperException.Code.SESSIONEXPIRED || code == KeeperException.Code.OPERATIONTIMEOUT);
			logger.debug("Lock '{}' key '{}': the deadlock verdict did not commit ({}); the wait goes on",
					waitsFor.name(), LockPaths.abbreviate(waitsFor.key()), code);
			return;
		}
		if (wait.deadlocked(new LockDeadlockException(deadlock))) {
			this.announcer.announce(deadlock);
		}
		else {
			logger.debug("Lock '{}' key '{}': the deadlock's victim was granted or ended meanwhile; its record is "
					+ "gone and the others go on", waitsFor.name(), LockPaths.abbreviate(waitsFor.key()));
		}
	}

	// Another instance's wait is the victim: wake it, once, with its own data written back
	private void nudge(WaitForGraph.Wait victim) {
		if (!this.nudged.add(victim.path())) {
			return;
		}
		try {
			this.client.setData().inBackground().forPath(victim.path(), victim.record().encode());
		}
		catch (Exception ex) {
			// its own periodic rounds find the cycle too
			logger.debug("Could not nudge the deadlock victim {}", victim.path(), ex);
		}
	}

	private static void report(WaitRecord record, String path, WaitForGraph.Cycle cycle, LockDeadlock deadlock) {
		if (!logger.isDebugEnabled()) {
			return;
		}
		Party victim = cycle.victim().record().party();
		String role = cycle.victim().path().equals(path) ? "its victim, as the newest wait"
				: "a member; its victim is the wait of thread '" + victim.thread() + "' (session 0x"
						+ Long.toHexString(victim.session()) + ")";
		logger.debug("Deadlock found on lock '{}' key '{}' ({}): the wait of thread '{}' (session 0x{}) is {}, in a "
				+ "cycle of {} waits:\n{}", record.waitsFor().name(), LockPaths.abbreviate(record.waitsFor().key()),
				record.waitsFor().mode(), record.party().thread(), Long.toHexString(record.party().session()), role,
				cycle.members().size(), deadlock.describe());
	}

	/**
	 * End the waits still published, and the rounds: the engine closes.
	 */
	@Override
	public void close() {
		for (PublishedWait wait : List.copyOf(this.published)) {
			wait.end();
		}
		this.lock.lock();
		try {
			if (this.sweep != null) {
				this.sweep.cancel(false);
				this.sweep = null;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	// The environment first: a reverse DNS lookup can be slow
	private static String hostName() {
		String variable = System.getenv("HOSTNAME");
		if (variable != null && !variable.isBlank()) {
			return variable.trim();
		}
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

	/**
	 * One key an acquisition waits for past its mark: what a published wait says of
	 * it.
	 *
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param path the lock path, whose queue it waits in
	 * @param mode the mode
	 * @param permits the permits of a SEMAPHORE, 1 for the other modes
	 * @param node the full path of the node it waits with
	 * @param local whether it waits behind this process's tenure
	 * @param owner the thread that will own the holds, {@code null} when asynchronous
	 * @param taken the keys this acquisition took already
	 * @param since when the acquisition began, for display
	 */
	record Waiting(String name, @Nullable String key, String path, LockMode mode, int permits, String node,
			boolean local, @Nullable Thread owner, List<Hold> taken, Instant since) {

	}

}
