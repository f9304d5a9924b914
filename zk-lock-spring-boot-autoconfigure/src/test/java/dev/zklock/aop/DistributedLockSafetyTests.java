package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import dev.zklock.FencingToken;
import dev.zklock.LockContext;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostEvent;
import dev.zklock.LockLostException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Fencing tokens and lost locks through {@link DistributedLock} methods, against
 * real ZooKeeper: a lock is lost by expiring the client's session while the method
 * runs.
 */
@ExtendWith(OutputCaptureExtension.class)
class DistributedLockSafetyTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withBean(LedgerService.class)
		.withBean(LostEvents.class);

	@Test
	void fencingTokenParameterReceivesTheTokenOfTheLock() {
		this.contextRunner.run((context) -> {
			LedgerService service = context.getBean(LedgerService.class);
			long first = service.post("acc-1", null);
			long second = service.post("acc-1", null);
			assertThat(first).isPositive();
			assertThat(second).isGreaterThan(first);
			assertThat(service.contextTokens()).containsExactly(first, second);
			long transfer = service.transfer("acc-2", "acc-1", null);
			assertThat(transfer).isEqualTo(service.contextTokens().get(2)).isGreaterThan(second);
		});
	}

	@Test
	void moreThanOneFencingTokenParameterFailsAtStartup() {
		TestZooKeeper.contextRunner().withBean(TwoTokens.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockDeclarationException.class)
				.hasMessageContaining(TwoTokens.class.getName() + ".pay(String, FencingToken, FencingToken)")
				.hasMessageContaining("2 parameters of type FencingToken (at positions [1, 2])");
		});
	}

	@Test
	void methodReturningAfterItsLockWasLostThrowsAndTheLossIsPublished() {
		this.contextRunner.run((context) -> {
			CompletableFuture<String> call = callWhileSessionExpires(context,
					(entered, proceed) -> () -> context.getBean(LedgerService.class).work("w-1", entered, proceed));
			ExecutionException failure = catchFailure(call);
			assertThat(failure.getCause()).isInstanceOf(LockLostException.class)
				.hasMessageContaining(LedgerService.class.getName() + ".work(String, CountDownLatch, CountDownLatch)")
				.hasMessageContaining("'slow'")
				.hasMessageContaining("'w-1'")
				.hasMessageContaining("zk-lock.lost-lock-action=LOG");
			assertThat(((LockLostException) failure.getCause()).getKey()).isEqualTo("w-1");
			CuratorLockManager manager = context.getBean(CuratorLockManager.class);
			assertThat(context.getBean(LostEvents.class).events).singleElement().satisfies((event) -> {
				assertThat(event.getLockName()).isEqualTo("slow");
				assertThat(event.getKey()).isEqualTo("w-1");
				assertThat(event.getPath()).isEqualTo(manager.pathFor("slow", "w-1"));
				assertThat(event.getMode()).isEqualTo(LockMode.MUTEX);
				assertThat(event.getFencingToken()).isPositive();
				assertThat(event.getThreadName()).isEqualTo("ledger-worker");
				assertThat(event.getReason()).isEqualTo(LockLossReason.SESSION_LOST);
				assertThat(event.getSource()).isSameAs(manager);
			});
			assertThat(manager.getRegistry().snapshot()).isEmpty();
		});
	}

	@Test
	void logActionReturnsTheResultAndWarns(CapturedOutput output) {
		this.contextRunner.withPropertyValues("zk-lock.lost-lock-action=LOG").run((context) -> {
			CompletableFuture<String> call = callWhileSessionExpires(context,
					(entered, proceed) -> () -> context.getBean(LedgerService.class).work("w-2", entered, proceed));
			assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(output).contains("LedgerService.work(String, CountDownLatch, CountDownLatch) returned after its "
					+ "lock was no longer held; returning its result because zk-lock.lost-lock-action=LOG")
				.contains("Lock 'slow' key 'w-2'");
			assertThat(context.getBean(CuratorLockManager.class).getRegistry().snapshot()).isEmpty();
		});
	}

	@Test
	void interruptOnLossInterruptsTheMethod() {
		this.contextRunner.withPropertyValues("zk-lock.interrupt-on-loss=true").run((context) -> {
			LedgerService service = context.getBean(LedgerService.class);
			CompletableFuture<String> call = callWhileSessionExpires(context,
					(entered, proceed) -> () -> service.sleepUntilInterrupted("s-1", entered));
			assertThat(catchFailure(call).getCause()).isInstanceOf(LockLostException.class);
			assertThat(service.interrupted()).containsExactly(Boolean.TRUE);
		});
	}

	@Test
	void lostLockRollsBackTheSurroundingTransaction() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
					JdbcTemplateAutoConfiguration.class))
			.withBean(Payments.class)
			.withBean(CheckoutService.class)
			.withPropertyValues(
					"spring.datasource.url=jdbc:h2:mem:lost-lock-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.run((context) -> {
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				jdbc.execute("create table payment (id varchar(20) primary key, fence bigint not null)");
				CheckoutService checkout = context.getBean(CheckoutService.class);
				checkout.checkout("kept", new CountDownLatch(1), new CountDownLatch(0));
				CompletableFuture<String> call = callWhileSessionExpires(context,
						(entered, proceed) -> () -> checkout.checkout("rolled-back", entered, proceed));
				assertThat(catchFailure(call).getCause()).isInstanceOf(LockLostException.class);
				assertThat(jdbc.queryForList("select id from payment", String.class)).containsExactly("kept");
			});
	}

	/**
	 * Start a call in a thread of its own, wait until it is inside its lock, expire
	 * the session, wait until the lock is lost, then let the call return.
	 */
	private static CompletableFuture<String> callWhileSessionExpires(AssertableApplicationContext context,
			CallFactory factory) throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch proceed = new CountDownLatch(1);
		Supplier<String> call = factory.create(entered, proceed);
		CompletableFuture<String> result = new CompletableFuture<>();
		Thread worker = new Thread(() -> {
			try {
				result.complete(call.get());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		}, "ledger-worker");
		worker.start();
		assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
		ZooKeeperSessions.expire(context.getBean(CuratorFramework.class));
		await().atMost(WAIT).until(() -> !context.getBean(LostEvents.class).events.isEmpty());
		proceed.countDown();
		return result;
	}

	private static ExecutionException catchFailure(CompletableFuture<String> call) {
		return org.assertj.core.api.Assertions.catchThrowableOfType(ExecutionException.class,
				() -> call.get(30, TimeUnit.SECONDS));
	}

	@FunctionalInterface
	interface CallFactory {

		Supplier<String> create(CountDownLatch entered, CountDownLatch proceed);

	}

	static class LostEvents implements ApplicationListener<LockLostEvent> {

		final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(LockLostEvent event) {
			this.events.add(event);
		}

	}

	static class LedgerService {

		private final List<Long> contextTokens = new CopyOnWriteArrayList<>();

		private final List<Boolean> interrupted = new CopyOnWriteArrayList<>();

		// the bean is a proxy: read state through methods
		public List<Long> contextTokens() {
			return this.contextTokens;
		}

		public List<Boolean> interrupted() {
			return this.interrupted;
		}

		@DistributedLock(name = "ledger", key = "#account")
		public long post(String account, FencingToken token) {
			this.contextTokens.add(LockContext.current().fencingToken());
			return token.value();
		}

		@DistributedLock(name = "ledger", key = "{#from, #to}")
		public long transfer(String from, String to, FencingToken token) {
			this.contextTokens.add(LockContext.current().fencingToken());
			return token.value();
		}

		@DistributedLock(name = "slow", key = "#id")
		public String work(String id, CountDownLatch entered, CountDownLatch proceed) {
			entered.countDown();
			try {
				proceed.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return "done";
		}

		@DistributedLock(name = "sleepy", key = "#id")
		public String sleepUntilInterrupted(String id, CountDownLatch entered) {
			entered.countDown();
			try {
				Thread.sleep(TimeUnit.MINUTES.toMillis(2));
				this.interrupted.add(Boolean.FALSE);
			}
			catch (InterruptedException ex) {
				this.interrupted.add(Boolean.TRUE);
			}
			return "woke up";
		}

	}

	static class Payments {

		private final JdbcTemplate jdbc;

		Payments(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@DistributedLock(name = "payment", key = "#id")
		public String record(String id, CountDownLatch entered, CountDownLatch proceed, FencingToken token) {
			this.jdbc.update("insert into payment (id, fence) values (?, ?)", id, token.value());
			entered.countDown();
			try {
				proceed.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return id;
		}

	}

	static class CheckoutService {

		private final Payments payments;

		CheckoutService(Payments payments) {
			this.payments = payments;
		}

		@Transactional
		public String checkout(String id, CountDownLatch entered, CountDownLatch proceed) {
			return this.payments.record(id, entered, proceed, null);
		}

	}

	static class TwoTokens {

		@DistributedLock(key = "#id")
		public void pay(String id, FencingToken first, FencingToken second) {
		}

	}

}
