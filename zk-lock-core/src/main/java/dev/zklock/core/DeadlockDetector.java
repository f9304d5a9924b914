package dev.zklock.core;

import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;

/**
 * The deadlock detection of one engine: it tells each acquisition when its wait
 * is to be marked ({@link DeadlockDetectionSettings#after()} after its start) and
 * publishes every key waited for behind others past that mark as a
 * {@link PublishedWait}: a {@link WaitRecord} naming the waiter, its node and
 * what its thread holds. Waits shorter than the mark never reach it, so they cost
 * nothing; the acquisition ends its published wait when the wait ends, and
 * {@link #close()} ends those left.
 */
final class DeadlockDetector implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(DeadlockDetector.class);

	private static final String HOST = hostName();

	private static final long PID = ProcessHandle.current().pid();

	private final CuratorFramework client;

	private final String waitsPath;

	private final LockRegistry registry;

	private volatile DeadlockDetectionSettings settings = DeadlockDetectionSettings.DEFAULTS;

	private final AtomicLong marks = new AtomicLong();

	// the waits published and not ended, for close()
	private final Set<PublishedWait> published = ConcurrentHashMap.newKeySet();

	/**
	 * @param client the manager's client, whose session the records share with the
	 * waits' nodes
	 * @param waitsPath where the records go, {@code <base-path>/#waits}
	 * @param registry what each thread holds
	 */
	DeadlockDetector(CuratorFramework client, String waitsPath, LockRegistry registry) {
		this.client = client;
		this.waitsPath = waitsPath;
		this.registry = registry;
	}

	void setSettings(DeadlockDetectionSettings settings) {
		this.settings = settings;
	}

	/**
	 * How long after its start a wait is marked.
	 * @return the nanoseconds, or -1 when detection is off
	 */
	long markNanos() {
		DeadlockDetectionSettings current = this.settings;
		return current.enabled() ? LockEngine.cappedNanos(current.after()) : -1;
	}

	/**
	 * A key is waited for behind others past the mark: publish it.
	 * @param waiting what is waited for, with which node, and what the acquisition
	 * took already
	 * @return the published wait, its create sent; the caller ends it
	 */
	PublishedWait publish(Waiting waiting) {
		long count = this.marks.incrementAndGet();
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '{}' key '{}' ({}) waited past the deadlock detection mark, node {}; mark {} of this "
					+ "engine", waiting.name(), LockPaths.abbreviate(waiting.key()), waiting.mode(), waiting.node(),
					count);
		}
		PublishedWait wait = new PublishedWait(this.client, record(waiting), this.published::remove);
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

	/**
	 * End the waits still published: the engine closes.
	 */
	@Override
	public void close() {
		for (PublishedWait wait : List.copyOf(this.published)) {
			wait.end();
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
