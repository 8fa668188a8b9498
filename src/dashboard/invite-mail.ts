// The invitation email an owner's "Invite by email" sends: who invited, to which shop's dashboard,
// and the one-time link, in the inviter's dashboard language (the person invited has chosen none
// yet). Plain text, with a simple HTML part beside it.
import { escapeHtml, type MailMessage } from '../mail/index.ts';
import { PAGE_LANGUAGES, type PageLanguage } from '../contracts/payer.ts';

interface InviteWords {
  subject: string;
  invited: string;
  action: string;
  ignore: string;
  /** The email belongs to an account elsewhere on the gateway: the invitation cannot be accepted with it. */
  taken: string;
}

// {inviter}, {shop}: filled in below. Short sentences, so each language says the same thing.
const WORDS: Record<PageLanguage, InviteWords> = {
  en: { subject: '{inviter} invited you to the {shop} dashboard', invited: '{inviter} invited you to the payments dashboard of {shop}.', action: 'Choose your password with this link (it works once, within 24 hours):', ignore: 'If you did not expect this email, you can ignore it.', taken: 'This email address already belongs to another account on this gateway, so the invitation cannot be used with it. If you want access, ask {inviter} to invite another address of yours.' },
  es: { subject: '{inviter} te ha invitado al panel de {shop}', invited: '{inviter} te ha invitado al panel de pagos de {shop}.', action: 'Elige tu contraseña con este enlace (funciona una vez, durante 24 horas):', ignore: 'Si no esperabas este correo, puedes ignorarlo.', taken: 'Esta dirección de correo ya pertenece a otra cuenta de esta pasarela, así que la invitación no puede usarse con ella. Si quieres acceso, pide a {inviter} que invite otra de tus direcciones.' },
  pt: { subject: '{inviter} convidou você para o painel de {shop}', invited: '{inviter} convidou você para o painel de pagamentos de {shop}.', action: 'Escolha sua senha com este link (funciona uma vez, em até 24 horas):', ignore: 'Se você não esperava este e-mail, pode ignorá-lo.', taken: 'Este endereço de e-mail já pertence a outra conta neste gateway, então o convite não pode ser usado com ele. Se quiser acesso, peça a {inviter} que convide outro endereço seu.' },
  ru: { subject: '{inviter} приглашает вас в панель {shop}', invited: '{inviter} приглашает вас в панель платежей {shop}.', action: 'Задайте пароль по этой ссылке (она действует один раз, в течение 24 часов):', ignore: 'Если вы не ждали этого письма, просто проигнорируйте его.', taken: 'Этот адрес уже принадлежит другой учётной записи на этом шлюзе, поэтому приглашение с ним использовать нельзя. Если вам нужен доступ, попросите {inviter} пригласить другой ваш адрес.' },
  tr: { subject: '{inviter} sizi {shop} paneline davet etti', invited: '{inviter} sizi {shop} ödeme paneline davet etti.', action: 'Şifrenizi bu bağlantıyla belirleyin (bir kez ve 24 saat içinde çalışır):', ignore: 'Bu e-postayı beklemiyorsanız yok sayabilirsiniz.', taken: 'Bu e-posta adresi bu ağ geçidinde zaten başka bir hesaba ait, bu yüzden davet bu adresle kullanılamaz. Erişim istiyorsanız {inviter} kişisinden başka bir adresinizi davet etmesini isteyin.' },
  zh: { subject: '{inviter} 邀请您加入 {shop} 的管理后台', invited: '{inviter} 邀请您加入 {shop} 的收款管理后台。', action: '请通过此链接设置密码（仅可使用一次，24 小时内有效）：', ignore: '如果您没有预期收到此邮件，可以忽略它。', taken: '此邮箱地址已属于本网关上的另一个账户，因此无法用它接受邀请。如需访问，请让 {inviter} 邀请您的另一个邮箱地址。' },
  ar: { subject: 'دعاك {inviter} إلى لوحة تحكم {shop}', invited: 'دعاك {inviter} إلى لوحة المدفوعات الخاصة بـ {shop}.', action: 'اختر كلمة المرور عبر هذا الرابط (يعمل مرة واحدة، خلال 24 ساعة):', ignore: 'إذا لم تكن تتوقع هذه الرسالة، يمكنك تجاهلها.', taken: 'عنوان البريد هذا مرتبط بالفعل بحساب آخر على هذه البوابة، لذا لا يمكن استخدام الدعوة به. إذا أردت الوصول، فاطلب من {inviter} دعوة عنوان آخر لك.' },
  fa: { subject: '{inviter} شما را به داشبورد {shop} دعوت کرد', invited: '{inviter} شما را به داشبورد پرداخت‌های {shop} دعوت کرد.', action: 'رمز عبور خود را با این پیوند انتخاب کنید (یک بار و تا ۲۴ ساعت کار می‌کند):', ignore: 'اگر انتظار این ایمیل را نداشتید، می‌توانید آن را نادیده بگیرید.', taken: 'این نشانی ایمیل از پیش به حساب دیگری در این درگاه تعلق دارد، پس دعوت با آن قابل استفاده نیست. اگر دسترسی می\u200cخواهید، از {inviter} بخواهید نشانی دیگری از شما را دعوت کند.' },
  de: { subject: '{inviter} hat Sie zum Dashboard von {shop} eingeladen', invited: '{inviter} hat Sie zum Zahlungs-Dashboard von {shop} eingeladen.', action: 'Wählen Sie Ihr Passwort über diesen Link (einmal gültig, innerhalb von 24 Stunden):', ignore: 'Wenn Sie diese E-Mail nicht erwartet haben, können Sie sie ignorieren.', taken: 'Diese E-Mail-Adresse gehört auf diesem Gateway bereits zu einem anderen Konto, daher kann die Einladung damit nicht genutzt werden. Wenn Sie Zugang möchten, bitten Sie {inviter}, eine andere Adresse von Ihnen einzuladen.' },
  fr: { subject: '{inviter} vous invite sur le tableau de bord de {shop}', invited: '{inviter} vous invite sur le tableau de bord des paiements de {shop}.', action: 'Choisissez votre mot de passe avec ce lien (valable une fois, pendant 24 heures) :', ignore: 'Si vous n’attendiez pas ce message, vous pouvez l’ignorer.', taken: 'Cette adresse e-mail appartient déjà à un autre compte sur cette passerelle : l’invitation ne peut donc pas être utilisée avec elle. Pour obtenir un accès, demandez à {inviter} d’inviter une autre de vos adresses.' },
  it: { subject: '{inviter} ti ha invitato nella dashboard di {shop}', invited: '{inviter} ti ha invitato nella dashboard dei pagamenti di {shop}.', action: 'Scegli la tua password con questo link (funziona una volta, entro 24 ore):', ignore: 'Se non ti aspettavi questa email, puoi ignorarla.', taken: 'Questo indirizzo email appartiene già a un altro account su questo gateway, quindi l’invito non può essere usato con esso. Se vuoi accedere, chiedi a {inviter} di invitare un altro tuo indirizzo.' },
  nl: { subject: '{inviter} heeft je uitgenodigd voor het dashboard van {shop}', invited: '{inviter} heeft je uitgenodigd voor het betalingsdashboard van {shop}.', action: 'Kies je wachtwoord via deze link (werkt één keer, binnen 24 uur):', ignore: 'Als je deze e-mail niet verwachtte, kun je hem negeren.', taken: 'Dit e-mailadres hoort op deze gateway al bij een ander account, dus de uitnodiging kan er niet mee worden gebruikt. Wil je toegang, vraag {inviter} dan een ander adres van je uit te nodigen.' },
  pl: { subject: '{inviter} zaprasza Cię do panelu {shop}', invited: '{inviter} zaprasza Cię do panelu płatności {shop}.', action: 'Ustaw hasło za pomocą tego linku (działa raz, przez 24 godziny):', ignore: 'Jeśli nie spodziewałeś się tej wiadomości, możesz ją zignorować.', taken: 'Ten adres e-mail należy już do innego konta w tej bramce, więc nie można z nim użyć zaproszenia. Jeśli chcesz mieć dostęp, poproś {inviter} o zaproszenie innego Twojego adresu.' },
  uk: { subject: '{inviter} запрошує вас до панелі {shop}', invited: '{inviter} запрошує вас до панелі платежів {shop}.', action: 'Оберіть пароль за цим посиланням (діє один раз, протягом 24 годин):', ignore: 'Якщо ви не чекали цього листа, просто проігноруйте його.', taken: 'Ця адреса вже належить іншому обліковому запису на цьому шлюзі, тому запрошення з нею використати не можна. Якщо вам потрібен доступ, попросіть {inviter} запросити іншу вашу адресу.' },
  ja: { subject: '{inviter} さんが {shop} のダッシュボードに招待しました', invited: '{inviter} さんが {shop} の決済ダッシュボードにあなたを招待しました。', action: 'こちらのリンクからパスワードを設定してください（1 回のみ、24 時間以内に有効）:', ignore: 'このメールに心当たりがない場合は、無視してください。', taken: 'このメールアドレスはこのゲートウェイの別のアカウントですでに使われているため、この招待には使えません。アクセスが必要な場合は、{inviter} さんに別のアドレスを招待するよう依頼してください。' },
  ko: { subject: '{inviter}님이 {shop} 대시보드에 초대했습니다', invited: '{inviter}님이 {shop}의 결제 대시보드에 회원님을 초대했습니다.', action: '이 링크에서 비밀번호를 설정하세요(24시간 안에 한 번만 사용할 수 있습니다):', ignore: '이 메일을 예상하지 못하셨다면 무시하셔도 됩니다.', taken: '이 이메일 주소는 이 게이트웨이의 다른 계정에서 이미 사용 중이어서 이 초대에 사용할 수 없습니다. 접근이 필요하면 {inviter}님에게 다른 주소로 초대해 달라고 요청하세요.' },
  id: { subject: '{inviter} mengundang Anda ke dasbor {shop}', invited: '{inviter} mengundang Anda ke dasbor pembayaran {shop}.', action: 'Pilih kata sandi Anda melalui tautan ini (berlaku sekali, dalam 24 jam):', ignore: 'Jika Anda tidak mengharapkan email ini, abaikan saja.', taken: 'Alamat email ini sudah dimiliki akun lain di gateway ini, jadi undangan tidak dapat digunakan dengannya. Jika Anda ingin akses, minta {inviter} mengundang alamat Anda yang lain.' },
  vi: { subject: '{inviter} đã mời bạn vào bảng điều khiển của {shop}', invited: '{inviter} đã mời bạn vào bảng điều khiển thanh toán của {shop}.', action: 'Hãy chọn mật khẩu qua liên kết này (dùng được một lần, trong vòng 24 giờ):', ignore: 'Nếu bạn không mong đợi email này, bạn có thể bỏ qua.', taken: 'Địa chỉ email này đã thuộc về một tài khoản khác trên cổng này, nên không thể dùng lời mời với nó. Nếu bạn muốn truy cập, hãy nhờ {inviter} mời một địa chỉ khác của bạn.' },
  hi: { subject: '{inviter} ने आपको {shop} के डैशबोर्ड पर आमंत्रित किया है', invited: '{inviter} ने आपको {shop} के भुगतान डैशबोर्ड पर आमंत्रित किया है।', action: 'इस लिंक से अपना पासवर्ड चुनें (यह एक बार, 24 घंटे के भीतर काम करता है):', ignore: 'अगर आपको इस ईमेल की उम्मीद नहीं थी, तो इसे अनदेखा कर दें।', taken: 'यह ईमेल पता इस गेटवे पर पहले से किसी दूसरे खाते का है, इसलिए इससे आमंत्रण का उपयोग नहीं हो सकता। अगर आपको पहुँच चाहिए, तो {inviter} से अपना कोई दूसरा पता आमंत्रित करने को कहें।' },
  th: { subject: '{inviter} เชิญคุณเข้าสู่แดชบอร์ดของ {shop}', invited: '{inviter} เชิญคุณเข้าสู่แดชบอร์ดการชำระเงินของ {shop}', action: 'ตั้งรหัสผ่านของคุณผ่านลิงก์นี้ (ใช้ได้ครั้งเดียว ภายใน 24 ชั่วโมง):', ignore: 'หากคุณไม่ได้คาดว่าจะได้รับอีเมลนี้ สามารถเพิกเฉยได้', taken: 'อีเมลนี้เป็นของบัญชีอื่นบนเกตเวย์นี้อยู่แล้ว จึงใช้คำเชิญนี้กับอีเมลนี้ไม่ได้ หากต้องการเข้าถึง โปรดขอให้ {inviter} เชิญอีเมลอื่นของคุณ' },
};

/** A name as it may stand in a subject line: control characters (a line break among them) become spaces. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** The language to write in: the inviter's chosen dashboard language, else the first their browser asks for that we have, else English. */
export function mailLanguage(chosen: string | null | undefined, acceptLanguage: string | undefined): PageLanguage {
  const known = (l: string | null | undefined): l is PageLanguage => !!l && (PAGE_LANGUAGES as readonly string[]).includes(l);
  if (known(chosen)) return chosen;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase().split('-')[0];
    if (known(tag)) return tag;
  }
  return 'en';
}

/**
 * The invitation, or, for an email that belongs to an account elsewhere on the gateway (which the
 * owner must not learn), a note to that person that it cannot be accepted with this address, and no link.
 */
export function inviteMail(input: { to: string; inviter: string; shop: string; link: string | null; language: PageLanguage }): MailMessage {
  const w = WORDS[input.language];
  const fill = (s: string, esc: (x: string) => string = (x) => x) => s.replace('{inviter}', esc(oneLine(input.inviter))).replace('{shop}', esc(oneLine(input.shop)));
  const dir = input.language === 'ar' || input.language === 'fa' ? 'rtl' : 'ltr';
  const link = input.link;
  const text = link === null ? `${fill(w.invited)}\n\n${fill(w.taken)}\n\n${w.ignore}\n` : `${fill(w.invited)}\n\n${w.action}\n${link}\n\n${w.ignore}\n`;
  const middle = link === null ? `<p>${fill(w.taken, escapeHtml)}</p>` : `<p>${escapeHtml(w.action)}<br><a href="${escapeHtml(link)}" dir="ltr">${escapeHtml(link)}</a></p>`;
  const html = `<!doctype html><html lang="${input.language}" dir="${dir}"><body><p>${fill(w.invited, escapeHtml)}</p>${middle}<p>${escapeHtml(w.ignore)}</p></body></html>`;
  return { to: input.to, subject: fill(w.subject), text, html };
}
