package dev.zklock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LeadershipListener;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The core election without Spring, against a real in-JVM server: instances with a
 * client (a session) of their own each, as separate applications have. Joining,
 * yielding, standing aside, rejoining at the back, a lost session and the shutdown
 * hand the role on, one leader at a time, with a larger fencing token for every
 * term.
 */
class RoleElectionTests extends AbstractZooKeeperTests {

	private static final String ROLE = "reports";

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final List<Instance> instances = new ArrayList<>();

	@AfterEach
	void closeInstances() {
		this.instances.forEach(Instance::close);
	}

	@Test
	void theFirstToJoinLeadsAndTheOthersKnowWho() throws Exception {
		Instance first = join("first");
		assertThat(first.election.awaitLeadership(ROLE, WAIT)).isTrue();
		Instance second = join("second");
		await().atMost(WAIT).until(() -> queue().size() == 2);
		assertThat(second.election.isLeader(ROLE)).isFalse();
		assertThat(second.election.fencingToken(ROLE)).isEmpty();
		assertThat(first.election.fencingToken(ROLE)).hasValueSatisfying((token) -> assertThat(token.value())
			.isEqualTo(first.election.term(ROLE).fencingToken())
			.isPositive());
		assertThat(second.election.currentLeader(ROLE)).hasValueSatisfying(
				(owner) -> assertThat(owner).isEqualTo(first.election.currentLeader(ROLE).orElseThrow()).isNotBlank());
		assertThat(first.changes).containsExactly("granted " + first.election.term(ROLE).fencingToken());
		assertThat(second.changes).isEmpty();
	}

	@Test
	void aYieldHandsTheRoleToTheNextAndRejoinsAtTheBackWithLargerTokens() throws Exception {
		Instance a = join("a");
		assertThat(a.election.awaitLeadership(ROLE, WAIT)).isTrue();
		Instance b = join("b");
		await().atMost(WAIT).until(() -> queue().size() == 2);
		Instance c = join("c");
		await().atMost(WAIT).until(() -> queue().size() == 3);
		long tokenA = a.token();

		assertThat(a.election.yieldLeadership(ROLE)).isTrue();
		assertThat(b.election.awaitLeadership(ROLE, WAIT)).isTrue();
		long tokenB = b.token();
		assertThat(tokenB).isGreaterThan(tokenA);
		assertThat(a.changes).containsExactly("granted " + tokenA, "revoked " + tokenA + " YIELDED");
		// back in the queue, behind c, which joined after it the first time
		await().atMost(WAIT).until(() -> queue().size() == 3);
		assertThat(queueOwners()).containsExactly(b.owner(), c.owner(), a.owner());

		assertThat(b.election.yieldLeadership(ROLE)).isTrue();
		assertThat(c.election.awaitLeadership(ROLE, WAIT)).isTrue();
		assertThat(a.election.isLeader(ROLE)).isFalse();
		long tokenC = c.token();
		assertThat(c.election.yieldLeadership(ROLE)).isTrue();
		assertThat(a.election.awaitLeadership(ROLE, WAIT)).isTrue();
		assertThat(a.token()).isGreaterThan(tokenC).isGreaterThan(tokenB);
		assertThat(c.election.yieldLeadership(ROLE)).as("c no longer leads").isFalse();
	}

	@Test
	void fencingTokensGrowWithEveryTermOfOneInstance() throws Exception {
		Instance alone = join("alone");
		List<Long> tokens = new ArrayList<>();
		for (int term = 0; term < 5; term++) {
			assertThat(alone.election.awaitLeadership(ROLE, WAIT)).isTrue();
			tokens.add(alone.token());
			assertThat(alone.election.yieldLeadership(ROLE)).isTrue();
		}
		assertThat(tokens).doesNotHaveDuplicates().isSortedAccordingTo(Comparator.naturalOrder());
	}

	@Test
	void standingAsideLeavesTheQueueUntilTheCauseIsOverThenJoinsAtTheBack() throws Exception {
		Instance a = join("a");
		assertThat(a.election.awaitLeadership(ROLE, WAIT)).isTrue();
		Instance b = join("b");
		await().atMost(WAIT).until(() -> queue().size() == 2);

		a.election.standAside(ROLE, "maintenance");
		assertThat(a.election.isLeader(ROLE)).isFalse();
		assertThat(b.election.awaitLeadership(ROLE, WAIT)).isTrue();
		await().atMost(WAIT).until(() -> queue().size() == 1);
		assertThat(a.election.standingAside()).containsEntry(ROLE, Set.of("maintenance"));
		assertThat(a.changes).last().asString().endsWith("YIELDED");

		a.election.standAgain(ROLE, "maintenance");
		await().atMost(WAIT).until(() -> queue().size() == 2);
		assertThat(queueOwners()).containsExactly(b.owner(), a.owner());
		assertThat(a.election.isLeader(ROLE)).isFalse();
	}

	@Test
	void aLostSessionRevokesTheLeaderWhichJoinsAgainAtTheBack() throws Exception {
		Instance a = join("a");
		assertThat(a.election.awaitLeadership(ROLE, WAIT)).isTrue();
		long tokenA = a.token();
		Instance b = join("b");
		await().atMost(WAIT).until(() -> queue().size() == 2);

		ZooKeeperSessions.expire(a.client);
		assertThat(b.election.awaitLeadership(ROLE, WAIT)).isTrue();
		long tokenB = b.token();
		assertThat(tokenB).isGreaterThan(tokenA);
		await().atMost(WAIT).until(() -> a.changes.size() == 2);
		assertThat(a.changes.get(1)).isIn("revoked " + tokenA + " CONNECTION_SUSPENDED",
				"revoked " + tokenA + " CONNECTION_LOST");
		// in the new session, behind b
		await().atMost(WAIT).until(() -> queue().size() == 2);
		assertThat(queueOwners()).containsExactly(b.owner(), a.owner());

		b.election.stop(WAIT);
		assertThat(a.election.awaitLeadership(ROLE, WAIT)).isTrue();
		assertThat(a.token()).isGreaterThan(tokenB);
		assertThat(b.changes).last().isEqualTo("revoked " + tokenB + " SHUTDOWN");
	}

	@Test
	void badRoleNamesAndUnknownRolesAreRefusedWithTheRoleNamed() throws Exception {
		Instance a = join("a");
		assertThatIllegalArgumentException().isThrownBy(() -> a.election.addRole(" padded"))
			.withMessageContaining("' padded'")
			.withMessageContaining("white space");
		assertThatIllegalArgumentException().isThrownBy(() -> a.election.isLeader("billing"))
			.withMessageContaining("'billing'")
			.withMessageContaining("addRole");
		assertThat(a.election.roles()).containsExactly(ROLE);
	}

	private Instance join(String name) throws Exception {
		Instance instance = new Instance(name, this.basePath);
		this.instances.add(instance);
		return instance;
	}

	private String queuePath() {
		return this.basePath + "/" + RoleElection.LOCK_NAME + "/" + ROLE;
	}

	private List<String> queue() throws Exception {
		if (client.checkExists().forPath(queuePath()) == null) {
			return List.of();
		}
		List<String> nodes = new ArrayList<>(client.getChildren().forPath(queuePath()));
		nodes.sort(Comparator.comparingLong(LockNodeNames::sequence));
		return nodes;
	}

	// the queue in order, as the sessions that own its nodes
	private List<Long> queueOwners() throws Exception {
		List<Long> owners = new ArrayList<>();
		for (String node : queue()) {
			owners.add(client.checkExists().forPath(queuePath() + "/" + node).getEphemeralOwner());
		}
		return owners;
	}

	/** An application instance: a session, a lock manager and an election of its own. */
	private static final class Instance implements LeadershipListener {

		final CuratorFramework client;

		final CuratorLockManager manager;

		final RoleElection election;

		final List<String> changes = new CopyOnWriteArrayList<>();

		Instance(String name, String basePath) throws Exception {
			this.client = ZooKeeperTestSupport.startClient(server.getConnectString());
			this.manager = new CuratorLockManager(this.client, basePath, Duration.ofSeconds(30));
			this.election = new RoleElection(this.client, this.manager.async(null), this, true, false);
			this.election.addRole(ROLE);
			this.election.start();
		}

		long token() {
			return this.election.fencingToken(ROLE).orElseThrow().value();
		}

		long owner() throws Exception {
			return this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}

		@Override
		public void granted(String role, long fencingToken, Instant since) {
			this.changes.add("granted " + fencingToken);
		}

		@Override
		public void revoked(String role, long fencingToken, LeadershipRevocationReason reason) {
			this.changes.add("revoked " + fencingToken + " " + reason);
		}

		void close() {
			this.election.stop(WAIT);
			this.election.close();
			this.manager.close();
			this.client.close();
		}

	}

}
