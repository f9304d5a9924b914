package dev.zklock.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.LockException;
import dev.zklock.core.LockPaths;
import dev.zklock.core.LockNodeNames;
import dev.zklock.annotation.LockMode;
import dev.zklock.actuate.LockQueuesDescriptor.KeyQueue;
import dev.zklock.actuate.LockQueuesDescriptor.Participant;

/**
 * Reads the queues of one lock name from ZooKeeper. The name is encoded into one
 * path segment by {@link LockPaths}, so whatever it contains, only nodes below
 * {@code <basePath>/<encoded name>} are read. Each key shows its nodes in order of
 * their sequence numbers: holders of a MUTEX or WRITE lock come first, READ nodes
 * hold while no WRITE node is ahead of them (a READ inside a WRITE holds beside its
 * WRITE; {@link LockNodeNames#holders}), and a semaphore's lease nodes hold
 * while fewer leases than the permits in their name are ahead of them. At most
 * {@value #MAX_KEYS} keys with at most {@value #MAX_PARTICIPANTS} participants each
 * are read.
 */
public class LockQueueReader {

	static final int MAX_KEYS = 100;

	static final int MAX_PARTICIPANTS = 100;

	// the longest wait for one answer of ZooKeeper
	private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(1);

	private final CuratorFramework client;

	/**
	 * Create a new reader.
	 * @param client the client, which reads within its namespace
	 */
	public LockQueueReader(CuratorFramework client) {
		this.client = Objects.requireNonNull(client, "client must not be null");
	}

	/**
	 * Read the queues of one lock name.
	 * @param basePath the path under which lock nodes live
	 * @param name the lock name, any text
	 * @return the queues, or {@code null} when no lock of that name exists
	 * @throws LockException when ZooKeeper is not connected or fails
	 */
	public @Nullable LockQueuesDescriptor read(String basePath, String name) {
		if (name == null || name.isBlank()) {
			return null;
		}
		String namePath = basePath + "/" + LockPaths.encode(name);
		if (!this.client.getZookeeperClient().isConnected()) {
			throw new LockException("Cannot read the queues of lock '" + name + "' at " + namePath
					+ ": ZooKeeper is not connected; check the zkLock health and zk-lock.connect-string");
		}
		try {
			List<String> segments = children(namePath);
			if (segments == null) {
				return null;
			}
			segments.sort(Comparator.naturalOrder());
			boolean truncated = segments.size() > MAX_KEYS;
			List<KeyQueue> keys = new ArrayList<>();
			for (String segment : segments.subList(0, Math.min(segments.size(), MAX_KEYS))) {
				String keyPath = namePath + "/" + segment;
				List<Participant> participants = participants(keyPath);
				if (participants.size() > MAX_PARTICIPANTS) {
					participants = participants.subList(0, MAX_PARTICIPANTS);
					truncated = true;
				}
				if (!participants.isEmpty()) {
					keys.add(new KeyQueue(decode(segment), keyPath, List.copyOf(participants)));
				}
			}
			return new LockQueuesDescriptor(name, namePath, List.copyOf(keys), truncated);
		}
		catch (Exception ex) {
			throw new LockException("Could not read the queues of lock '" + name + "' at " + namePath + ": " + ex
					+ "; check the ZooKeeper connection", ex);
		}
	}

	private List<Participant> participants(String keyPath) throws Exception {
		List<String> children = children(keyPath);
		if (children == null) {
			return List.of();
		}
		List<Participant> participants = new ArrayList<>();
		participants.addAll(queue(keyPath, children, LockNodeNames.MUTEX));
		participants.addAll(queue(keyPath, children, LockNodeNames.READ, LockNodeNames.WRITE));
		participants.addAll(semaphore(keyPath, children));
		return participants;
	}

	// MUTEX, or READ and WRITE: the nodes of one recipe, sorted by sequence
	private List<Participant> queue(String keyPath, List<String> children, String... kinds) throws Exception {
		List<String> nodes = sortedNodes(children, kinds);
		// the engine's rule, so that a READ inside a WRITE shows held beside its WRITE
		Set<String> holders = Set.copyOf(LockNodeNames.holders(nodes));
		List<Participant> queue = new ArrayList<>(nodes.size());
		for (String node : nodes) {
			LockMode mode = modeOf(node);
			String state = holders.contains(node) ? "HELD" : "WAITING";
			Participant participant = participant(keyPath + "/" + node, node, mode, state);
			if (participant != null) {
				queue.add(participant);
			}
		}
		return queue;
	}

	// Lease nodes in order: a lease holds while fewer leases than its permits are ahead
	private List<Participant> semaphore(String keyPath, List<String> children) throws Exception {
		List<String> leases = sortedNodes(children, LockNodeNames.LEASE);
		List<Participant> participants = new ArrayList<>(leases.size());
		for (int i = 0; i < leases.size(); i++) {
			String lease = leases.get(i);
			String state = (i < permits(lease)) ? "HELD" : "WAITING";
			Participant participant = participant(keyPath + "/" + lease, lease, LockMode.SEMAPHORE, state);
			if (participant != null) {
				participants.add(participant);
			}
		}
		return participants;
	}

	// The permits a lease's owner counts with: lease-<permits>-<sequence>
	static int permits(String lease) {
		return LockNodeNames.permits(lease);
	}

	// The sequence ZooKeeper appended, -1 for a name without one
	static long sequence(String node) {
		return LockNodeNames.sequence(node);
	}

	private @Nullable Participant participant(String path, String node, LockMode mode, String state) throws Exception {
		CuratorEvent event = answer(path, (callback) -> this.client.getData().inBackground(callback).forPath(path));
		if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
			return null;
		}
		checkAnswer(event, path);
		Stat stat = event.getStat();
		byte[] data = event.getData();
		String owner = (data != null && data.length > 0) ? new String(data, StandardCharsets.UTF_8) : null;
		Long fencingToken = "HELD".equals(state) ? stat.getCzxid() : null;
		return new Participant(node, sequence(node), mode.name(), state, owner,
				"0x" + Long.toHexString(stat.getEphemeralOwner()), Instant.ofEpochMilli(stat.getCtime()),
				fencingToken);
	}

	private @Nullable List<String> children(String path) throws Exception {
		CuratorEvent event = answer(path, (callback) -> this.client.getChildren().inBackground(callback).forPath(path));
		if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
			return null;
		}
		checkAnswer(event, path);
		return new ArrayList<>(event.getChildren());
	}

	// Waits at most ANSWER_TIMEOUT: a connection that drops traffic silently must not hold the caller (an
	// endpoint's request thread) for Curator's connection timeout and retries
	private static CuratorEvent answer(String path, Read read) throws Exception {
		CompletableFuture<CuratorEvent> answered = new CompletableFuture<>();
		read.send((client, event) -> answered.complete(event));
		try {
			return answered.get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new LockException("ZooKeeper did not answer a read of " + path + " within "
					+ ANSWER_TIMEOUT.toMillis() + " ms; check the zkLock health and zk-lock.connect-string");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw ex;
		}
	}

	private static void checkAnswer(CuratorEvent event, String path) throws KeeperException {
		if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
			throw KeeperException.create(KeeperException.Code.get(event.getResultCode()), path);
		}
	}

	/**
	 * One read sent in the background.
	 */
	@FunctionalInterface
	private interface Read {

		void send(BackgroundCallback callback) throws Exception;

	}

	private static List<String> sortedNodes(@Nullable List<String> children, String... kinds) {
		if (children == null) {
			return List.of();
		}
		List<String> nodes = new ArrayList<>();
		for (String child : children) {
			for (String kind : kinds) {
				if (child.contains(kind) && sequence(child) >= 0) {
					nodes.add(child);
					break;
				}
			}
		}
		nodes.sort(Comparator.comparingLong(LockQueueReader::sequence));
		return nodes;
	}

	private static LockMode modeOf(String node) {
		if (node.contains(LockNodeNames.READ)) {
			return LockMode.READ;
		}
		return node.contains(LockNodeNames.WRITE) ? LockMode.WRITE : LockMode.MUTEX;
	}

	// The key as given, where its segment can be decoded
	static @Nullable String decode(String segment) {
		if (segment.equals(LockPaths.NO_KEY)) {
			return null;
		}
		if (segment.equals(LockPaths.EMPTY_KEY)) {
			return "";
		}
		if (segment.indexOf('#') >= 0) {
			return segment;
		}
		try {
			return percentDecode(segment);
		}
		catch (IllegalArgumentException ex) {
			return segment;
		}
	}

	private static String percentDecode(String segment) {
		byte[] bytes = new byte[segment.length()];
		int length = 0;
		for (int i = 0; i < segment.length(); i++) {
			char c = segment.charAt(i);
			if (c == '%' && i + 2 < segment.length()) {
				bytes[length++] = (byte) Integer.parseInt(segment, i + 1, i + 3, 16);
				i += 2;
			}
			else {
				bytes[length++] = (byte) c;
			}
		}
		return new String(bytes, 0, length, StandardCharsets.UTF_8);
	}

}
