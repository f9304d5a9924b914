package dev.zklock.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import dev.zklock.LockException;
import dev.zklock.actuate.LockQueuesDescriptor.KeyQueue;
import dev.zklock.actuate.LockQueuesDescriptor.Participant;
import dev.zklock.leader.CuratorLeaderElection;

/**
 * {@link Endpoint @Endpoint} that shows the leadership of roles, read from
 * ZooKeeper: for each role, the leader's owner data, fencing token and since when
 * it leads, and the candidates standing by in order. Roles of other applications
 * that share the base path show too, and this instance's roles even while nobody
 * leads them.
 */
@Endpoint(id = "leaders")
public class LeadersEndpoint {

	private final CuratorLeaderElection election;

	private final CuratorFramework client;

	private final LockQueueReader queueReader;

	/**
	 * Create a new endpoint.
	 * @param election this instance's election
	 * @param client the client the election uses
	 */
	public LeadersEndpoint(CuratorLeaderElection election, CuratorFramework client) {
		this.election = Objects.requireNonNull(election, "election must not be null");
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.queueReader = new LockQueueReader(client);
	}

	/**
	 * Every role.
	 * @return the roles, by name
	 */
	@ReadOperation
	public LeadersDescriptor leaders() {
		Map<String, RoleDescriptor> roles = new TreeMap<>();
		LockQueuesDescriptor queues = this.queueReader.read(this.election.getBasePath(),
				CuratorLeaderElection.LOCK_NAME);
		if (queues != null) {
			for (KeyQueue queue : queues.keys()) {
				if (queue.key() != null) {
					roles.put(queue.key(), describe(queue.key(), queue.path(), queue.participants()));
				}
			}
		}
		for (String role : this.election.roles()) {
			roles.computeIfAbsent(role, (name) -> describe(name, "", List.of()));
		}
		return new LeadersDescriptor(this.election.getBasePath() + "/" + CuratorLeaderElection.LOCK_NAME, roles,
				(queues != null) && queues.truncated());
	}

	/**
	 * One role.
	 * @param role the role name
	 * @return the role, or {@code null} (404) when nobody takes part in it
	 */
	@ReadOperation
	public @Nullable RoleDescriptor role(@Selector String role) {
		RoleDescriptor described = leaders().roles().get(role);
		return (described != null && (described.leader() != null || described.member())) ? described : null;
	}

	private RoleDescriptor describe(String role, String path, List<Participant> participants) {
		LeaderDescriptor leader = null;
		List<CandidateDescriptor> candidates = new ArrayList<>();
		for (Participant participant : participants) {
			if (leader == null && "HELD".equals(participant.state())) {
				leader = new LeaderDescriptor(participant.owner(), participant.fencingToken(),
						leadingSince(path + "/" + participant.node(), participant.created()), participant.created(),
						participant.sessionId(), participant.node());
			}
			else {
				candidates.add(new CandidateDescriptor(participant.owner(), participant.created(),
						participant.sessionId(), participant.node()));
			}
		}
		boolean member = this.election.roles().contains(role);
		return new RoleDescriptor(role, member, member && this.election.isLeader(role), leader, candidates);
	}

	// the node's last write: the new leader stamps it on its grant
	private Instant leadingSince(String nodePath, Instant created) {
		try {
			Stat stat = this.client.checkExists().forPath(nodePath);
			return (stat != null) ? Instant.ofEpochMilli(stat.getMtime()) : created;
		}
		catch (Exception ex) {
			throw new LockException("Could not read the leader node " + nodePath + ": " + ex
					+ "; check the ZooKeeper connection", ex);
		}
	}

	/**
	 * The roles.
	 *
	 * @param path the ZooKeeper path under which each role has its queue
	 * @param roles each role by name
	 * @param truncated whether roles or candidates were left out because there were
	 * too many
	 */
	public record LeadersDescriptor(String path, Map<String, RoleDescriptor> roles, boolean truncated) {

	}

	/**
	 * One role.
	 *
	 * @param role the role name
	 * @param member whether this instance takes part in the role
	 * @param leading whether this instance leads it for sure right now
	 * @param leader the leader, or {@code null} when nobody leads
	 * @param candidates the candidates standing by, next one first
	 */
	public record RoleDescriptor(String role, boolean member, boolean leading, @Nullable LeaderDescriptor leader,
			List<CandidateDescriptor> candidates) {

	}

	/**
	 * The leader of a role.
	 *
	 * @param owner the leader node's data: which instance leads
	 * @param fencingToken the leadership's fencing token, the node's creation zxid
	 * @param since when it became the leader, as stamped on its node on the grant
	 * (until the stamp is written, when it joined)
	 * @param joined when it joined the queue
	 * @param sessionId the leader's ZooKeeper session, in hex
	 * @param node the node name
	 */
	public record LeaderDescriptor(@Nullable String owner, @Nullable Long fencingToken, Instant since,
			Instant joined, String sessionId, String node) {

	}

	/**
	 * A candidate standing by.
	 *
	 * @param owner the node's data: which instance waits
	 * @param joined when it joined the queue
	 * @param sessionId its ZooKeeper session, in hex
	 * @param node the node name
	 */
	public record CandidateDescriptor(@Nullable String owner, Instant joined, String sessionId, String node) {

	}

}
