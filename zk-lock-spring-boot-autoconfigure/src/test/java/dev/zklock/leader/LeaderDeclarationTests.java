package dev.zklock.leader;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.aop.InvalidLockDeclarationException;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.Leader;
import dev.zklock.autoconfigure.InvalidZkLockPropertyException;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad {@code @Leader} declarations and role properties stop the application at
 * startup with a message that names the method or property and what to do.
 */
class LeaderDeclarationTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration.class));

	@Test
	void emptyRoleIsRejected() {
		assertRejected(EmptyRole.class, EmptyRole.class.getName() + ".run()", "the role name is empty");
	}

	@Test
	void roleThatIsNoPathSegmentIsRejected() {
		assertRejected(LongRole.class, LongRole.class.getName() + ".run()", "of one readable path segment");
	}

	@Test
	void roleWithSurroundingWhiteSpaceIsRejected() {
		assertRejected(PaddedRole.class, PaddedRole.class.getName() + ".run()", "white space");
	}

	@Test
	void combinationWithDistributedLockIsRejected() {
		assertRejected(AlsoLocked.class, AlsoLocked.class.getName() + ".run()", "also has @DistributedLock");
	}

	@Test
	void primitiveReturnTypeIsRejected() {
		assertRejected(ReturnsInt.class, ReturnsInt.class.getName() + ".count()",
				"it returns int, which cannot express a call skipped");
	}

	@Test
	void asynchronousReturnTypeIsRejected() {
		assertRejected(ReturnsFuture.class, ReturnsFuture.class.getName() + ".run()", "CompletableFuture");
	}

	@Test
	void validDeclarationsStart() {
		this.contextRunner.withBean(Valid.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(Valid.class).report()).isNotNull();
		});
	}

	@Test
	void badRolePropertyIsRejected() {
		this.contextRunner.withPropertyValues("zk-lock.leader.roles=reports, ").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidZkLockPropertyException.class)
				.hasMessageContaining("zk-lock.leader.roles");
		});
	}

	private void assertRejected(Class<?> beanClass, String method, String problem) {
		this.contextRunner.withBean(beanClass).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageContaining(method)
				.hasMessageContaining(problem);
		});
	}

	static class EmptyRole {

		@Leader("")
		public void run() {
		}

	}

	static class LongRole {

		@Leader("role-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-"
				+ "0123456789-0123456789-0123456789-0123456789")
		public void run() {
		}

	}

	static class PaddedRole {

		@Leader(" poller")
		public void run() {
		}

	}

	static class AlsoLocked {

		@Leader("poller")
		@DistributedLock
		public void run() {
		}

	}

	static class ReturnsInt {

		@Leader("poller")
		public int count() {
			return 1;
		}

	}

	static class ReturnsFuture {

		@Leader("poller")
		public CompletableFuture<Void> run() {
			return CompletableFuture.completedFuture(null);
		}

	}

	static class Valid {

		@Leader("poller")
		public Optional<String> report() {
			return Optional.of("report");
		}

	}

}
