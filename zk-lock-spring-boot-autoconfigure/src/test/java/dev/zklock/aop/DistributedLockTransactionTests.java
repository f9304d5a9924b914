package dev.zklock.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.zklock.annotation.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read, increment, write of one H2 row in a {@code @Transactional}
 * {@code @DistributedLock} method, from several threads. With the default
 * advisor order the lock surrounds the transaction and no update is lost. With
 * the lock inside the transaction the same load loses updates.
 */
class DistributedLockTransactionTests {

	private static final int THREADS = 4;

	private static final int INCREMENTS_PER_THREAD = 5;

	private static final int EXPECTED = THREADS * INCREMENTS_PER_THREAD;

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				JdbcTemplateAutoConfiguration.class))
		.withBean(CounterService.class)
		.withPropertyValues("zk-lock.default-timeout=60s",
				"spring.datasource.url=jdbc:h2:mem:lock-tx-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");

	@Test
	void lockAroundTheTransactionLosesNoUpdate() {
		this.contextRunner.run((context) -> {
			assertThat(advisorTypes(context)).containsSubsequence(DistributedLockAdvisor.class,
					BeanFactoryTransactionAttributeSourceAdvisor.class);
			CounterService service = context.getBean(CounterService.class);
			service.reset();
			hammer(service);
			assertThat(service.value()).isEqualTo(EXPECTED);
		});
	}

	/**
	 * Control run: the transaction advisor is given precedence over the lock
	 * advisor, so the lock sits inside the transaction. The lock is then released
	 * when the method returns but before the commit; the next holder reads the
	 * old committed value and writes the same increment again. Spring's
	 * transaction advisor defaults to the lowest precedence, so putting the lock
	 * inside it takes both a higher aspect order for the lock and an explicit
	 * transaction order.
	 */
	@Test
	void lockInsideTheTransactionLosesUpdates() {
		this.contextRunner.withUserConfiguration(TransactionFirstConfiguration.class)
			.withPropertyValues("zk-lock.aspect-order=" + Ordered.LOWEST_PRECEDENCE)
			.run((context) -> {
				assertThat(advisorTypes(context)).containsSubsequence(BeanFactoryTransactionAttributeSourceAdvisor.class,
						DistributedLockAdvisor.class);
				CounterService service = context.getBean(CounterService.class);
				service.reset();
				hammer(service);
				assertThat(service.value()).isLessThan(EXPECTED);
			});
	}

	private static List<Class<?>> advisorTypes(AssertableApplicationContext context) {
		List<Class<?>> types = new ArrayList<>();
		for (Advisor advisor : ((Advised) context.getBean(CounterService.class)).getAdvisors()) {
			types.add(advisor.getClass());
		}
		return types;
	}

	private static void hammer(CounterService service) throws Exception {
		Hammer.hammer(THREADS, INCREMENTS_PER_THREAD, service::increment);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = Ordered.LOWEST_PRECEDENCE - 1)
	static class TransactionFirstConfiguration {

	}

	static class CounterService {

		private final JdbcTemplate jdbc;

		CounterService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		public void reset() {
			this.jdbc.execute("create table if not exists counter (id int primary key, v int not null)");
			this.jdbc.update("merge into counter key (id) values (1, 0)");
		}

		public int value() {
			return this.jdbc.queryForObject("select v from counter where id = 1", Integer.class);
		}

		@Transactional
		@DistributedLock(name = "tx-counter", timeout = "60s")
		public void increment() {
			int current = value();
			this.jdbc.update("update counter set v = ? where id = 1", current + 1);
			TransactionSynchronizationManager.registerSynchronization(new SlowCommit());
		}

	}

	/**
	 * A commit that takes a little while, as over a network: work done while the
	 * transaction is still open.
	 */
	static class SlowCommit implements TransactionSynchronization {

		@Override
		public void beforeCommit(boolean readOnly) {
			try {
				Thread.sleep(30);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
