package dev.zklock.aop

import dev.zklock.annotation.DistributedLock
import org.springframework.beans.factory.getBean
import org.springframework.boot.Banner
import org.springframework.boot.SpringApplication
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.context.annotation.Bean
import org.springframework.util.ClassUtils
import kotlin.system.exitProcess

/**
 * A Kotlin application for [CoroutinesReactorAbsentTests], run in a JVM whose class
 * path lacks kotlinx-coroutines-reactor: its bean has a `@DistributedLock` suspend
 * function, so startup must fail. It checks the absence itself, prints one
 * `RESULT ...` line with what happened, and exits with 0 when startup failed.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
open class CoroutinesReactorFreeApplication {

    @Bean
    open fun suspendWork(): SuspendWork = SuspendWork()

    /** The bean whose suspend function cannot be locked here. */
    open class SuspendWork {
        @DistributedLock(key = "#id")
        open suspend fun work(id: String): String = id
    }

}

fun main(args: Array<String>) {
    if (ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", null)) {
        println("RESULT invalid: kotlinx-coroutines-reactor is on the class path, so this run proves nothing")
        exitProcess(1)
    }
    val application = SpringApplication(CoroutinesReactorFreeApplication::class.java)
    application.setWebApplicationType(WebApplicationType.NONE)
    application.setBannerMode(Banner.Mode.OFF)
    application.setDefaultProperties(mapOf("spring.docker.compose.enabled" to "false"))
    try {
        application.run(*args).use { context ->
            println("RESULT started " + context.getBean<CoroutinesReactorFreeApplication.SuspendWork>())
        }
        exitProcess(1)
    } catch (ex: Throwable) {
        var root: Throwable = ex
        while (root.cause != null && root.cause !== root) {
            root = root.cause!!
        }
        println("RESULT failed ${root.javaClass.simpleName}: ${root.message?.replace('\n', ' ')}")
        exitProcess(0)
    }
}
