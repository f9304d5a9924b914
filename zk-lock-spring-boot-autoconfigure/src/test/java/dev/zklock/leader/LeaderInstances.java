package dev.zklock.leader;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.retry.RetryOneTime;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;

/**
 * One application instance of the leader tests: the leader auto-configuration on the
 * shared test server, the {@link PollerJob} that only the leader runs, and a
 * {@link LeadershipRecorder} of what the instance was told.
 */
final class LeaderInstances {

	private LeaderInstances() {
	}

	/**
	 * The runner of an instance.
	 * @param basePath the base path that the instances share
	 * @param name the instance's {@code spring.application.name}
	 * @return the runner
	 */
	static ApplicationContextRunner instance(String basePath, String name) {
		return TestZooKeeper.contextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration.class))
			.withBean(PollerJob.class)
			.withBean(LeadershipRecorder.class)
			.withPropertyValues("zk-lock.base-path=" + basePath, "spring.application.name=" + name);
	}

	/**
	 * The runner of an instance under the connection-loss-policy LOST: its client
	 * counts only a lost session as an error.
	 * @param basePath the base path that the instances share
	 * @return the runner
	 */
	static ApplicationContextRunner lostPolicyInstance(String basePath) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, ZkLockLeaderAutoConfiguration.class))
			.withBean(PollerJob.class)
			.withBean(LeadershipRecorder.class)
			.withPropertyValues("zk-lock.base-path=" + basePath)
			.withBean(CuratorFramework.class, () -> {
				CuratorFramework client = CuratorFrameworkFactory.builder()
					.connectString(TestZooKeeper.connectString())
					.retryPolicy(new RetryOneTime(100))
					.connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy())
					.build();
				client.start();
				return client;
			}, (definition) -> definition.setDestroyMethodName("close"));
	}

}
