package dev.zklock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.jayway.jsonpath.JsonPath;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockContext;
import dev.zklock.LockHandle;
import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.LostLockAction;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LockInfo;
import dev.zklock.LockLossListener;
import dev.zklock.LockOwnerData;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock-safety properties and beans of the auto-configuration, against a real
 * ZooKeeper server: error policy, owner data, loss listeners and the template's
 * action on lost locks.
 */
class LockSafetyAutoConfigurationTests {

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(() -> InJvmZooKeeper.builder().start());

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class))
		.withPropertyValues("zk-lock.connect-string=" + server.get().connectString(),
				"zk-lock.session-timeout=10s");

	@Test
	void clientUsesCuratorsStandardErrorPolicyByDefault() {
		this.runner.run((context) -> {
			assertThat(context.getBean(CuratorFramework.class).getConnectionStateErrorPolicy())
				.isInstanceOf(StandardConnectionStateErrorPolicy.class);
			assertThat(context.getBean(ZkLockProperties.class).getLostLockAction()).isEqualTo(LostLockAction.THROW);
			assertThat(context.getBean(ZkLockProperties.class).isInterruptOnLoss()).isFalse();
		});
	}

	@Test
	void lostPolicyGivesTheClientCuratorsSessionErrorPolicy() {
		this.runner.withPropertyValues("zk-lock.connection-loss-policy=lost")
			.run((context) -> assertThat(context.getBean(CuratorFramework.class).getConnectionStateErrorPolicy())
				.isInstanceOf(SessionConnectionStateErrorPolicy.class));
	}

	@Test
	void ownerDataNamesTheApplication() {
		this.runner.withPropertyValues("spring.application.name=billing", "zk-lock.base-path=/owner-app")
			.run((context) -> {
				String json = dataOfHeldNode(context, "/owner-app");
				assertThat((String) JsonPath.read(json, "$.app")).isEqualTo("billing");
				assertThat((String) JsonPath.read(json, "$.thread")).isEqualTo(Thread.currentThread().getName());
			});
	}

	@Test
	void ownerDataCanBeTurnedOff() {
		this.runner.withPropertyValues("zk-lock.owner-data=false", "zk-lock.base-path=/owner-off")
			.run((context) -> assertThat(dataOfHeldNode(context, "/owner-off")).doesNotContain("\"thread\""));
	}

	@Test
	void ownerDataBeanReplacesTheDefault() {
		this.runner.withPropertyValues("zk-lock.base-path=/owner-bean")
			.withBean(LockOwnerData.class, () -> () -> "owner=batch-7".getBytes(StandardCharsets.UTF_8))
			.run((context) -> assertThat(dataOfHeldNode(context, "/owner-bean")).isEqualTo("owner=batch-7"));
	}

	@Test
	void lockLossListenerBeansAreToldAboutLosses() {
		RecordingLossListener listener = new RecordingLossListener();
		this.runner.withBean(LockLossListener.class, () -> listener).run((context) -> {
			LockHandle handle = context.getBean(CuratorLockManager.class)
				.acquire(LockRequest.named("listened").keys("1").build());
			ZooKeeperSessions.expire(context.getBean(CuratorFramework.class));
			await().atMost(Duration.ofSeconds(30)).until(() -> !listener.losses.isEmpty());
			assertThat(listener.losses).singleElement()
				.satisfies((lost) -> assertThat(lost.name()).isEqualTo("listened"));
			assertThat(listener.reasons).containsExactly(LockLossReason.SESSION_LOST);
			handle.close();
		});
	}

	@Test
	void templateUsesTheLostLockAction() {
		this.runner.withPropertyValues("zk-lock.lost-lock-action=log").run((context) -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			String result = template.execute(LockRequest.named("template").keys("1").build(), () -> {
				LockContext lock = LockContext.current();
				ZooKeeperSessions.expire(client);
				await().atMost(Duration.ofSeconds(30)).until(() -> !lock.isHeld());
				return "returned";
			});
			assertThat(result).isEqualTo("returned");
		});
	}

	private static String dataOfHeldNode(AssertableApplicationContext context, String basePath) throws Exception {
		CuratorLockManager manager = context.getBean(CuratorLockManager.class);
		CuratorFramework client = context.getBean(CuratorFramework.class);
		try (LockHandle handle = manager.acquire(LockRequest.named("owned").keys("1").build())) {
			String lockPath = manager.pathFor("owned", "1");
			List<String> children = client.getChildren().forPath(lockPath);
			assertThat(children).hasSize(1);
			return new String(client.getData().forPath(lockPath + "/" + children.get(0)), StandardCharsets.UTF_8);
		}
	}

	static final class RecordingLossListener implements LockLossListener {

		final List<LockInfo> losses = new CopyOnWriteArrayList<>();

		final List<LockLossReason> reasons = new CopyOnWriteArrayList<>();

		@Override
		public void lockLost(LockInfo lock, LockLossReason reason) {
			this.losses.add(lock);
			this.reasons.add(reason);
		}

	}

}
