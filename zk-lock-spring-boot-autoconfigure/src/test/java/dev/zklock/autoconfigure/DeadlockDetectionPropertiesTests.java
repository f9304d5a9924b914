package dev.zklock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockManager;
import dev.zklock.aop.HotKeyRound;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.DeadlockDetectionSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code zk-lock.deadlock-detection.*} bind with their defaults and reach the
 * auto-configured lock manager, with {@code spring.application.name} as the name
 * its published waits carry; a value the engine cannot use stops the context and
 * names the property.
 */
class DeadlockDetectionPropertiesTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner();

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			defaults                                                                                        | true  | 1s    | 10
			zk-lock.deadlock-detection.enabled=false, zk-lock.deadlock-detection.after=250ms, zk-lock.deadlock-detection.history=3 | false | 250ms | 3
			""")
	void valuesBindAndReachTheManager(String properties, boolean enabled, String after, int history) {
		this.contextRunner.withPropertyValues(properties.equals("defaults") ? new String[0] : properties.split(", "))
			.withPropertyValues("spring.application.name=orders")
			.run((context) -> {
				ZkLockProperties.DeadlockDetection detection = context.getBean(ZkLockProperties.class)
					.getDeadlockDetection();
				assertThat(detection.isEnabled()).isEqualTo(enabled);
				assertThat(detection.getAfter()).isEqualTo(DurationStyle.detectAndParse(after));
				assertThat(detection.getHistory()).isEqualTo(history);
				assertThat(HotKeyRound.manager(context).getDeadlockDetection()).isEqualTo(
						new DeadlockDetectionSettings(enabled, DurationStyle.detectAndParse(after), history, "orders"));
			});
	}

	// a lock manager of the application's own leaves the asynchronous one an engine of its own, set alike
	@Test
	void valuesReachAnAsynchronousManagerWithAnEngineOfItsOwn() {
		this.contextRunner.withPropertyValues("zk-lock.deadlock-detection.after=2s")
			.withBean("ownLockManager", LockManager.class, () -> (request) -> {
				throw new UnsupportedOperationException("not used here");
			})
			.run((context) -> assertThat(context.getBean(AsyncLockManager.class).getDeadlockDetection().after())
				.isEqualTo(Duration.ofSeconds(2)));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
			zk-lock.deadlock-detection.after=0s   | Invalid value '0s' for property 'zk-lock.deadlock-detection.after': it must be positive. Set 'zk-lock.deadlock-detection.after' to a duration such as 1s, or set 'zk-lock.deadlock-detection.enabled=false' to turn deadlock detection off.
			zk-lock.deadlock-detection.history=-1 | Invalid value '-1' for property 'zk-lock.deadlock-detection.history': it must not be negative. Set 'zk-lock.deadlock-detection.history' to how many deadlocks the locks endpoint shows, such as 10, or to 0 to show none.
			""")
	void aBadValueStopsTheContextNamingTheProperty(String property, String message) {
		this.contextRunner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidZkLockPropertyException.class)
				.hasMessage(message);
		});
	}

}
