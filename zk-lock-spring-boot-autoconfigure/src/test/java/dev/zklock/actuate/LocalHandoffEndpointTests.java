package dev.zklock.actuate;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.actuate.LocalHandoffDescriptor.TenureDescriptor;
import dev.zklock.actuate.LocksEndpoint.LocksDescriptor;
import dev.zklock.aop.HotKeyRound;
import dev.zklock.autoconfigure.LocksEndpointAutoConfiguration;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/locks} shows each key held with local hand-off: the tenure's
 * node, its local holder and waiters and its passes, beside the usual entries.
 */
class LocalHandoffEndpointTests {

	private final ApplicationContextRunner contextRunner = HotKeyRound.contextRunner()
		.withConfiguration(AutoConfigurations.of(LocksEndpointAutoConfiguration.class, EndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=locks");

	private final TestThreads threads = new TestThreads("hot-caller");

	@AfterEach
	void stopThreads() {
		this.threads.close();
	}

	@Test
	void aTenureShowsItsNodeHolderWaitersAndPasses() {
		this.contextRunner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			CuratorLockManager manager = HotKeyRound.manager(context);
			assertThat(endpoint.locks().localHandoff().tenures()).isEmpty();
			try (HotKeyRound round = HotKeyRound.start(context, HotKeyRound.blocking(context, this.threads, "42"), 2)) {
				LocksDescriptor locks = endpoint.locks();
				assertThat(locks.localHandoff().tenures()).hasSize(1);
				TenureDescriptor tenure = locks.localHandoff().tenures().get(0);
				assertThat(tenure.name()).isEqualTo("hot");
				assertThat(tenure.key()).isEqualTo("42");
				assertThat(tenure.mode()).isEqualTo("MUTEX");
				String keyPath = manager.getBasePath() + "/hot/42";
				assertThat(context.getBean(CuratorFramework.class).getChildren().forPath(keyPath))
					.containsExactly(tenure.node());
				assertThat(tenure.holders()).singleElement().asString().startsWith("hot-caller-");
				assertThat(tenure.waiters()).isEqualTo(2);
				assertThat(tenure.passes()).isZero();
				assertThat(tenure.othersWaiting()).isFalse();
				assertThat(locks.locks()).filteredOn((lock) -> lock.state().equals("HELD"))
					.singleElement()
					.satisfies((held) -> assertThat(held.fencingToken()).isEqualTo(tenure.fencingToken()));
				assertThat(locks.locks()).filteredOn((lock) -> lock.state().equals("WAITING")).hasSize(2);
				assertThat(locks.localHandoff().localHandoffs()).isZero();
				assertThat(locks.localHandoff().zooKeeperHandoffs()).isEqualTo(1);
				assertThat(locks.localHandoff().maxPasses()).isEqualTo(16);
				JsonNode json = new ObjectMapper().valueToTree(locks);
				assertThat(json.get("localHandoff").get("tenures").get(0).get("node").asString())
					.isEqualTo(tenure.node());
				assertThat(json.get("locks").size()).isEqualTo(3);
				round.finish();
			}
			LocalHandoffDescriptor after = endpoint.locks().localHandoff();
			assertThat(after.tenures()).isEmpty();
			assertThat(after.localHandoffs()).isEqualTo(2);
			assertThat(after.zooKeeperHandoffs()).isEqualTo(1);
		});
	}

	@Test
	void passesShowWhileTheTenureLasts() {
		this.contextRunner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			CuratorLockManager manager = HotKeyRound.manager(context);
			HotKeyRound.Call call = HotKeyRound.blocking(context, this.threads, "42");
			CompletableFuture<Void> releaseNext = new CompletableFuture<>();
			CompletableFuture<Long> next;
			try (HotKeyRound round = HotKeyRound.start(context, call, 0)) {
				next = call.start(releaseNext);
				await().atMost(HotKeyRound.WAIT).until(() -> manager.getRegistry().waitingCount() == 1);
				List<Long> tokens = round.finish();
				await("the key passed to the next caller").atMost(HotKeyRound.WAIT)
					.until(() -> endpoint.locks().localHandoff().tenures().get(0).passes() == 1);
				TenureDescriptor passed = endpoint.locks().localHandoff().tenures().get(0);
				assertThat(passed.waiters()).isZero();
				assertThat(passed.holders()).hasSize(1);
				assertThat(passed.fencingToken()).isEqualTo(tokens.get(0));
			}
			releaseNext.complete(null);
			assertThat(next.get(30, TimeUnit.SECONDS)).isPositive();
		});
	}

}
