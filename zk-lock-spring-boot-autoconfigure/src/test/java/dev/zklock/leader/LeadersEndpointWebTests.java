package dev.zklock.leader;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.zklock.LeaderElection;
import dev.zklock.actuate.ActuatorHttp;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/leaders} and {@code /actuator/leaders/{role}} over real HTTP in
 * a running application that leads a role while two other instances stand by.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=leaders", "spring.application.name=leader-web",
				"zk-lock.leader.roles=" + LeadersEndpointWebTests.ROLE })
// the context closes after this class, and the server with it (below), so that no leader of this class is
// left to lose its server while later test classes run and capture the log
@DirtiesContext
class LeadersEndpointWebTests {

	static final String ROLE = "reports";

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final StoppableZooKeeper server = StoppableZooKeeper.start();

	private static final String BASE_PATH = "/leaders-web-" + UUID.randomUUID();

	@Autowired
	private LeaderElection election;

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void zooKeeper(DynamicPropertyRegistry registry) {
		registry.add("zk-lock.connect-string", server::connectString);
		registry.add("zk-lock.base-path", () -> BASE_PATH);
	}


	// another instance on the same server and base path, standing by for the role
	private static ApplicationContextRunner standBy(String name) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, ZkLockLeaderAutoConfiguration.class))
			.withBean(CuratorFramework.class, () -> server.newClient(30_000),
					(definition) -> definition.setDestroyMethodName("close"))
			.withPropertyValues("zk-lock.base-path=" + BASE_PATH, "spring.application.name=" + name,
					"zk-lock.leader.roles=" + ROLE);
	}

	@Test
	void showsTheLeaderItsTokenSinceWhenAndTheCandidatesInOrder() throws Exception {
		assertThat(this.election.awaitLeadership(ROLE, WAIT)).isTrue();
		long token = this.election.fencingToken(ROLE).orElseThrow().value();
		standBy("standby-1").run((first) -> {
			await().atMost(WAIT).until(() -> candidates(getJson("/actuator/leaders/" + ROLE, null)).size() == 1);
			standBy("standby-2").run((second) -> {
				await().atMost(WAIT).until(() -> candidates(getJson("/actuator/leaders/" + ROLE, null)).size() == 2);

				Map<String, Object> role = getJson("/actuator/leaders/" + ROLE, "leaders-role.json");
				assertThat(role).containsEntry("role", ROLE).containsEntry("member", true).containsEntry("leading", true);
				Map<String, Object> leader = map(role.get("leader"));
				assertThat((String) leader.get("owner")).contains("\"app\":\"leader-web\"");
				assertThat(((Number) leader.get("fencingToken")).longValue()).isEqualTo(token);
				Instant since = Instant.parse((String) leader.get("since"));
				assertThat(since).isAfterOrEqualTo(Instant.parse((String) leader.get("joined")));
				assertThat((String) leader.get("sessionId")).startsWith("0x");
				List<Map<String, Object>> candidates = candidates(role);
				assertThat(candidates).extracting((candidate) -> (String) candidate.get("owner"))
					.satisfiesExactly((owner) -> assertThat(owner).contains("\"app\":\"standby-1\""),
							(owner) -> assertThat(owner).contains("\"app\":\"standby-2\""));
				// in queue order: each node's sequence number above the one before
				assertThat(candidates).extracting((candidate) -> sequence((String) candidate.get("node")))
					.isSorted()
					.allSatisfy((sequence) -> assertThat(sequence).isGreaterThan(sequence((String) leader.get("node"))));
				assertThat(candidates).extracting((candidate) -> Instant.parse((String) candidate.get("joined")))
					.isSorted();
				assertThat(candidates).allSatisfy((candidate) -> assertThat(candidate).doesNotContainKey("fencingToken"));

				Map<String, Object> all = getJson("/actuator/leaders", "leaders.json");
				assertThat(all).containsEntry("path", BASE_PATH + "/" + CuratorLeaderElection.LOCK_NAME)
					.containsEntry("truncated", false);
				assertThat(map(all.get("roles"))).containsOnlyKeys(ROLE);
				assertThat(map(map(all.get("roles")).get(ROLE))).isEqualTo(role);

				// the role moves on: the next candidate leads with a larger token, this instance waits at the back
				assertThat(this.election.yieldLeadership(ROLE)).isTrue();
				assertThat(first.getBean(LeaderElection.class).awaitLeadership(ROLE, WAIT)).isTrue();
				await().atMost(WAIT)
					.until(() -> map(getJson("/actuator/leaders/" + ROLE, null).get("leader")).get("owner")
						.toString()
						.contains("standby-1") && candidates(getJson("/actuator/leaders/" + ROLE, null)).size() == 2);
				Map<String, Object> moved = getJson("/actuator/leaders/" + ROLE, null);
				assertThat(moved).containsEntry("member", true).containsEntry("leading", false);
				Map<String, Object> newLeader = map(moved.get("leader"));
				assertThat(((Number) newLeader.get("fencingToken")).longValue()).isGreaterThan(token)
					.isEqualTo(first.getBean(LeaderElection.class).fencingToken(ROLE).orElseThrow().value());
				assertThat(Instant.parse((String) newLeader.get("since"))).isAfterOrEqualTo(since);
				assertThat(candidates(moved)).extracting((candidate) -> (String) candidate.get("owner"))
					.satisfiesExactly((owner) -> assertThat(owner).contains("\"app\":\"standby-2\""),
							(owner) -> assertThat(owner).contains("\"app\":\"leader-web\""));
			});
		});
		// the stand-bys closed: this instance leads again
		assertThat(this.election.awaitLeadership(ROLE, WAIT)).isTrue();
		Map<String, Object> back = getJson("/actuator/leaders/" + ROLE, null);
		assertThat(back).containsEntry("leading", true);
		assertThat(candidates(back)).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "nobody", "%2E%2E", "..%2F..", "%2Fzookeeper", "zookeeper" })
	void anUnknownRoleIsNotFound(String role) throws Exception {
		HttpResponse<String> response = ActuatorHttp.get(this.port, "/actuator/leaders/" + role);
		assertThat(response.statusCode()).as("GET /actuator/leaders/%s: %s", role, response.body()).isIn(400, 404);
		if (role.equals("nobody")) {
			assertThat(response.statusCode()).isEqualTo(404);
		}
	}

	private Map<String, Object> getJson(String path, String sample) throws IOException, InterruptedException {
		return ActuatorHttp.getJson(this.port, path, sample);
	}

	// the sequence number ZooKeeper appended to a node name
	private static long sequence(String node) {
		return Long.parseLong(node.substring(node.length() - 10));
	}

	private static List<Map<String, Object>> candidates(Map<String, Object> role) {
		return list(role.get("candidates"));
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Object value) {
		return (List<Map<String, Object>>) value;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object value) {
		return (Map<String, Object>) value;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ReportsApplication {

		// destroyed after the lifecycle stop, so the role is given up while the server still runs
		@Bean(destroyMethod = "close")
		StoppableZooKeeper zooKeeperServer() {
			return server;
		}

	}

}
