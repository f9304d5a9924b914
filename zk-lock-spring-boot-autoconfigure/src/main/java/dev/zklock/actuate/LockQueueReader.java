package dev.zklock.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.zklock.LockException;
import dev.zklock.core.KeyEncoder;
import dev.zklock.annotation.LockMode;
import dev.zklock.actuate.LockQueuesDescriptor.KeyQueue;
import dev.zklock.actuate.LockQueuesDescriptor.Participant;

/**
 * Reads the queues of one lock name from ZooKeeper. The name is encoded into one
 * path segment by {@link KeyEncoder}, so whatever it contains, only nodes below
 * {@code <basePath>/<encoded name>} are read. Each key shows its nodes in order of
 * their sequence numbers: holders of a MUTEX or WRITE lock come first, READ nodes
 * hold while no WRITE node is ahead of them, and a semaphore shows its leases
 * (held permits) and then the queue of threads waiting for one. At most
 * {@value #MAX_KEYS} keys with at most {@value #MAX_PARTICIPANTS} participants each
 * are read.
 */
public class LockQueueReader {

	static final int MAX_KEYS = 100;

	static final int MAX_PARTICIPANTS = 100;

	private static final String MUTEX_NODE = "lock-";

	private static final String READ_NODE = "__READ__";

	private static final String WRITE_NODE = "__WRIT__";

	private static final String SEMAPHORE_LEASES = "leases";

	private static final String SEMAPHORE_QUEUE = "locks";

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
		String namePath = basePath + "/" + KeyEncoder.encode(name);
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
		participants.addAll(queue(keyPath, children, MUTEX_NODE));
		participants.addAll(queue(keyPath, children, READ_NODE, WRITE_NODE));
		if (children.contains(SEMAPHORE_LEASES) || children.contains(SEMAPHORE_QUEUE)) {
			participants.addAll(semaphore(keyPath));
		}
		return participants;
	}

	// MUTEX, or READ and WRITE: the nodes of one recipe, sorted by sequence
	private List<Participant> queue(String keyPath, List<String> children, String... kinds) throws Exception {
		List<String> nodes = sortedNodes(children, kinds);
		List<Participant> queue = new ArrayList<>(nodes.size());
		boolean writerAhead = false;
		for (int i = 0; i < nodes.size(); i++) {
			String node = nodes.get(i);
			LockMode mode = modeOf(node);
			boolean held = switch (mode) {
				case READ -> !writerAhead;
				default -> i == 0;
			};
			writerAhead |= mode == LockMode.WRITE;
			Participant participant = participant(keyPath + "/" + node, node, mode, held ? "HELD" : "WAITING");
			if (participant != null) {
				queue.add(participant);
			}
		}
		return queue;
	}

	// Leases are taken permits. Threads queue on an inner lock; its head takes a
	// lease and then waits, still at the head, while there are more leases than
	// permits. Only the head creates leases, one at a time, so its lease is the one
	// attributed by headLease; every other lease is held.
	private List<Participant> semaphore(String keyPath) throws Exception {
		String queuePath = keyPath + "/" + SEMAPHORE_QUEUE;
		Stat queueStat = new Stat();
		List<Node> queue = new ArrayList<>();
		for (String node : sortedNodes(children(queuePath, queueStat), MUTEX_NODE)) {
			Node read = read(queuePath + "/" + node, node, LockMode.SEMAPHORE, "WAITING");
			if (read != null) {
				queue.add(read);
			}
		}
		String leasesPath = keyPath + "/" + SEMAPHORE_LEASES;
		List<Node> leases = new ArrayList<>();
		for (String node : sortedNodes(children(leasesPath), "lease-")) {
			Node lease = read(leasesPath + "/" + node, node, LockMode.SEMAPHORE, "HELD");
			if (lease != null) {
				leases.add(lease);
			}
		}
		Node headLease = queue.isEmpty() ? null : headLease(queue.get(0), leases, queueStat.getPzxid());
		List<Participant> participants = new ArrayList<>();
		for (Node lease : leases) {
			Participant participant = lease.participant();
			if (lease == headLease) {
				participant = new Participant(participant.node(), participant.sequence(), participant.mode(),
						"ACQUIRING", participant.owner(), participant.sessionId(), participant.created(), null);
			}
			participants.add(participant);
		}
		for (int i = (headLease != null) ? 1 : 0; i < queue.size(); i++) {
			participants.add(queue.get(i).participant());
		}
		return participants;
	}

	/**
	 * The lease the head of the queue created, or {@code null} when it has none or
	 * it cannot be told. Candidates are leases newer than the head's queue node with
	 * the head's session and the head's node data. When that data names a thread
	 * (owner data on, {@code zk-lock.owner-data=true}, the default), the head's
	 * thread is blocked in its acquisition, so the newest candidate is its lease.
	 * Without owner data all threads of a process write the same data; a candidate
	 * is then the head's only when it is newer than the last change of the queue
	 * (pzxid of the {@code locks} node), as every earlier head took its lease before
	 * leaving the queue. Otherwise the head's lease shows as HELD and the head as
	 * WAITING.
	 */
	static @Nullable Node headLease(Node head, List<Node> leases, long queuePzxid) {
		Node newest = null;
		for (Node lease : leases) {
			if (lease.czxid() > head.czxid() && lease.sessionId() == head.sessionId()
					&& Arrays.equals(lease.data(), head.data()) && (newest == null || lease.czxid() > newest.czxid())) {
				newest = lease;
			}
		}
		if (newest == null) {
			return null;
		}
		return (namesThread(head.data()) || newest.czxid() > queuePzxid) ? newest : null;
	}

	// Owner data as written by LockOwnerData.json(..)
	private static boolean namesThread(byte[] data) {
		return data != null && new String(data, StandardCharsets.UTF_8).contains("\"thread\":\"");
	}

	private @Nullable Participant participant(String path, String node, LockMode mode, String state) throws Exception {
		Node read = read(path, node, mode, state);
		return (read != null) ? read.participant() : null;
	}

	private @Nullable Node read(String path, String node, LockMode mode, String state) throws Exception {
		Stat stat = new Stat();
		byte[] data;
		try {
			data = this.client.getData().storingStatIn(stat).forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return null;
		}
		String owner = (data != null && data.length > 0) ? new String(data, StandardCharsets.UTF_8) : null;
		Long fencingToken = "HELD".equals(state) ? stat.getCzxid() : null;
		Participant participant = new Participant(node, sequence(node), mode.name(), state, owner,
				"0x" + Long.toHexString(stat.getEphemeralOwner()), Instant.ofEpochMilli(stat.getCtime()),
				fencingToken);
		return new Node(participant, stat.getCzxid(), stat.getEphemeralOwner(), data);
	}

	private @Nullable List<String> children(String path) throws Exception {
		return children(path, new Stat());
	}

	private @Nullable List<String> children(String path, Stat stat) throws Exception {
		try {
			return new ArrayList<>(this.client.getChildren().storingStatIn(stat).forPath(path));
		}
		catch (KeeperException.NoNodeException ex) {
			return null;
		}
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
		if (node.contains(READ_NODE)) {
			return LockMode.READ;
		}
		return node.contains(WRITE_NODE) ? LockMode.WRITE : LockMode.MUTEX;
	}

	// ZooKeeper appends a ten-digit sequence number to sequential nodes
	static long sequence(String node) {
		int digits = 10;
		if (node.length() < digits) {
			return -1;
		}
		String suffix = node.substring(node.length() - digits);
		for (int i = 0; i < digits; i++) {
			if (!Character.isDigit(suffix.charAt(i))) {
				return -1;
			}
		}
		return Long.parseLong(suffix);
	}

	// The key as given, where its segment can be decoded
	static @Nullable String decode(String segment) {
		if (segment.equals(KeyEncoder.NO_KEY)) {
			return null;
		}
		if (segment.equals(KeyEncoder.EMPTY_KEY)) {
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

	record Node(Participant participant, long czxid, long sessionId, byte[] data) {

	}

}
