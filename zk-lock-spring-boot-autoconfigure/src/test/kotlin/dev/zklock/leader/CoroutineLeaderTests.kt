package dev.zklock.leader

import dev.zklock.LeaderElection
import dev.zklock.aop.InvalidLockDeclarationException
import dev.zklock.aop.TestZooKeeper
import dev.zklock.annotation.Leader
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration
import dev.zklock.awaitLeadership
import dev.zklock.findLockContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import org.springframework.context.annotation.Configuration
import org.springframework.scheduling.annotation.EnableScheduling
import org.springframework.scheduling.annotation.Scheduled
import java.time.Duration
import java.util.UUID
import java.util.concurrent.atomic.AtomicInteger

/**
 * A suspend `@Scheduled @Leader` job of three application instances on one real
 * ZooKeeper server runs on the leader only: the others skip every tick without
 * running the body, and take over when the leader yields.
 */
class CoroutineLeaderTests {

    private val basePath = "/coroutine-leader-tests/" + UUID.randomUUID()

    private fun instance(name: String): ApplicationContextRunner = TestZooKeeper.contextRunner()
        .withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration::class.java))
        .withUserConfiguration(Scheduling::class.java)
        .withBean(SuspendTicker::class.java)
        .withPropertyValues("zk-lock.base-path=$basePath", "spring.application.name=$name")

    @Test
    fun aSuspendScheduledLeaderJobRunsOnOneOfThreeInstancesPerTick() {
        instance("app-a").run { a ->
            runBlocking { withTimeout(20_000) { a.getBean(LeaderElection::class.java).awaitLeadership(ROLE) } }
            instance("app-b").run { b ->
                instance("app-c").run { c ->
                    val instances = listOf(a, b, c)
                    awaitRuns(a, 5)
                    // the scheduler ticks on every instance; only the leader's body ran, one at a time
                    assertThat(ticker(b).runs.get() + ticker(c).runs.get()).isZero()
                    assertThat(maxActive.get()).isEqualTo(1)
                    assertThat(a.getBean(LeaderElection::class.java).yieldLeadership(ROLE)).isTrue()
                    val leaderRunsAtYield = ticker(a).runs.get()
                    await().atMost(Duration.ofSeconds(20))
                        .until { ticker(b).runs.get() + ticker(c).runs.get() >= 5 }
                    assertThat(instances.count { it.getBean(LeaderElection::class.java).isLeader(ROLE) }).isEqualTo(1)
                    // at most the body under way when it yielded ended after that
                    assertThat(ticker(a).runs.get()).isLessThanOrEqualTo(leaderRunsAtYield + 1)
                    assertThat(instances.sumOf { ticker(it).withoutTerm.get() }).isZero()
                    println("suspend @Scheduled @Leader runs: " + instances.map { ticker(it).runs.get() })
                }
            }
        }
    }

    @Test
    fun aSuspendLeaderFunctionWithANonNullReturnTypeStopsStartup() {
        TestZooKeeper.contextRunner()
            .withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration::class.java))
            .withBean(NonNullReport::class.java)
            .run { context ->
                assertThat(context).hasFailed()
                assertThat(context.startupFailure).rootCause()
                    .isInstanceOf(InvalidLockDeclarationException::class.java)
                    .hasMessageContaining(NonNullReport::class.java.name + ".report()")
                    .hasMessageContaining("return type is not nullable")
            }
    }

    private fun ticker(context: ApplicationContext): SuspendTicker = context.getBean(SuspendTicker::class.java)

    private fun awaitRuns(context: ApplicationContext, count: Int) {
        await().atMost(Duration.ofSeconds(20)).until { ticker(context).runs.get() >= count }
    }

    /** A leader function whose non-leaders would have nothing to return. */
    open class NonNullReport {
        @Leader(ROLE)
        open suspend fun report(): String = "report"
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    open class Scheduling

    /** Counts its runs; open, as the leader advice proxies it with CGLIB. */
    open class SuspendTicker {

        open val runs = AtomicInteger()

        open val withoutTerm = AtomicInteger()

        @Scheduled(fixedDelay = 20)
        @Leader(ROLE)
        open suspend fun tick() {
            val now = active.incrementAndGet()
            maxActive.accumulateAndGet(now) { x, y -> maxOf(x, y) }
            try {
                if (findLockContext() == null) {
                    withoutTerm.incrementAndGet()
                }
                delay(5)
                runs.incrementAndGet()
            } finally {
                active.decrementAndGet()
            }
        }

    }

    companion object {

        const val ROLE = "co-ticker"

        // shared by the three instances of one JVM
        val active = AtomicInteger()

        val maxActive = AtomicInteger()

    }

}
